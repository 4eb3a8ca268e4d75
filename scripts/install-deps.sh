#!/usr/bin/env bash
# Installs orcd's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libpoco-dev libyaml-cpp-dev libboost-dev libboost-filesystem-dev
  libgtest-dev libgmock-dev libpcre2-dev
  curl python3 clang-format
  libsystemd-dev  # sd_notify: orcd-host under a Type=notify systemd unit
  file lintian    # scripts/package-test.sh: dpkg-shlibdeps (through CPack) and lintian
  # Structured output's checks: the JSON Schema test suite's instances, and
  # an independent validator of sampled outputs.
  json-schema-test-suite python3-jsonschema
)
# The OpenAI-client test runs the `openai` npm package: node and npm from
# Debian unless the machine already has them.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
