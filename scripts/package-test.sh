#!/usr/bin/env bash
# The Debian packages as a user gets them: builds the .debs (CUDA off, release,
# no tests: build-deb-ci), checks each with lintian and its declared
# dependencies against this Debian, installs them into a scratch root without
# privileges (dpkg -x), and from that root alone runs orcd-host --version,
# orcd-inspect on a fixture and the template unit orcd@.service's command line
# for GPU 1 on the CPU backend, serving stories260K, whose greedy completion
# must be the llama.cpp golden's. Run by scripts/test.sh after CTest.
#
# No LD_LIBRARY_PATH: the packages ship no shared library of their own (the
# plugins are dlopen()ed from <root>/usr/lib/orcd/plugins, found from the
# binary's own path), and the system libraries they link are this machine's,
# which the dependency check below shows are the ones declared.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=${ORCD_DEB_BUILD_DIR:-build-deb-ci}
fixtures=${ORCD_FIXTURES_DIR:-$repo/../shared/fixtures}

step() { printf '== package-test: %s\n' "$*"; }
fail() {
  printf 'package-test: FAIL: %s\n' "$*" >&2
  exit 1
}

step "build the packages (CUDA off) in $build"
ORCD_CUDA=OFF ORCD_DEB_BUILD_DIR=$build packaging/build-deb.sh
debs=("$build"/orcd_*.deb "$build"/orcd-plugins_*.deb "$build"/orcd-sdk_*.deb)
for deb in "${debs[@]}"; do [ -f "$deb" ] || fail "missing package $deb"; done

step "lintian (errors and warnings fail; overrides carry their reasons)"
lintian --fail-on error,warning --tag-display-limit 0 "${debs[@]}" ||
  fail "lintian found errors or warnings"

step "declared dependencies resolve to these packages or to installed Debian packages"
python3 - "${debs[@]}" <<'PY' || fail "a declared dependency is not satisfied"
import subprocess, sys
def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", deb, name], capture_output=True, text=True,
                          check=True).stdout.strip()
built = {field(d, "Package"): field(d, "Version") for d in sys.argv[1:]}
def installed(name):
    r = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status} ${Version}", name],
                       capture_output=True, text=True)
    status, _, version = r.stdout.partition(" ")
    return version if r.returncode == 0 and status == "installed" else None
def satisfied(alternative):
    name, _, constraint = alternative.strip().partition(" ")
    name = name.split(":")[0]
    version = built.get(name) or installed(name)
    if version is None:
        return False
    if not constraint:
        return True
    op, wanted = constraint.strip("()").split()
    return subprocess.run(["dpkg", "--compare-versions", version, op, wanted]).returncode == 0
bad = []
for deb in sys.argv[1:]:
    depends = field(deb, "Depends")
    print(f"{field(deb, 'Package')}: Depends: {depends or '(none)'}")
    for clause in filter(None, (c.strip() for c in depends.split(","))):
        if not any(satisfied(a) for a in clause.split("|")):
            bad.append(f"{field(deb, 'Package')}: {clause}")
if bad:
    print("unsatisfied:", *bad, sep="\n  ")
    sys.exit(1)
PY

root=$(mktemp -d /tmp/orcd-package-root.XXXXXX)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$root"
}
trap cleanup EXIT
step "install into $root (dpkg -x, unprivileged)"
for deb in "${debs[@]}"; do dpkg -x "$deb" "$root"; done
for path in usr/bin/orcd-host usr/bin/orcd-inspect etc/orcd/worker.yaml etc/orcd/plugins.d \
  usr/lib/systemd/system/orcd.service usr/lib/systemd/system/orcd@.service \
  usr/lib/orcd/plugins/orcd-plugin-llama.so usr/include/orcd/plugin.h; do
  [ -e "$root/$path" ] || fail "the packages do not install /$path"
done
[ "$(dpkg-deb -f "$build"/orcd_*.deb Depends)" != "" ] || fail "orcd declares no Depends"
dpkg-deb --ctrl-tarfile "$build"/orcd_*.deb | tar -xO ./conffiles | grep -qx /etc/orcd/worker.yaml ||
  fail "/etc/orcd/worker.yaml is not a conffile"

step "orcd-host --version"
version=$("$root/usr/bin/orcd-host" --version)
echo "$version"
case $version in "orcd-host "*) ;; *) fail "unexpected --version output: $version" ;; esac

step "orcd-inspect on a fixture"
inspect=$("$root/usr/bin/orcd-inspect" --device cpu "$fixtures/models/qwen2-tiny.Q4_0.gguf" 2>&1) ||
  fail "orcd-inspect failed: $inspect"
echo "$inspect" | tail -n 4
# "served by q4": the quant plugin was found in the root, from the binary's path.
echo "$inspect" | grep -q "served by q4" || fail "orcd-inspect found no installed quant plugin"
echo "$inspect" | grep -q "^supported: *yes" || fail "orcd-inspect: not supported"

if "$root/usr/bin/orcd-host" --help | grep -q -- --list-plugins; then
  step "orcd-host --list-plugins finds the installed plugins"
  listing=$("$root/usr/bin/orcd-host" --list-plugins --config "$root/etc/orcd/worker.yaml")
  echo "$listing" | grep -q "$root/usr/lib/orcd/plugins/orcd-plugin-llama.so" ||
    fail "--list-plugins does not list the installed llama plugin: $listing"
fi

if command -v systemd-analyze >/dev/null; then
  step "systemd-analyze verify: the units parse (each key known, each value valid)"
  units=$root/units-to-verify
  mkdir "$units"
  for unit in orcd.service orcd@.service; do
    sed "s|/usr/bin/orcd-host|$root/usr/bin/orcd-host|" "$root/usr/lib/systemd/system/$unit" \
      >"$units/$unit"
  done
  ln -s orcd@.service "$units/orcd@1.service"
  # systemd-analyze reports a bad line as "FILE:LINE: ..." and still exits 0.
  complaints=$(systemd-analyze verify "$units/orcd.service" "$units/orcd@1.service" 2>&1 |
    grep "^$units/" || true)
  [ -z "$complaints" ] || fail "systemd-analyze verify: $complaints"
else
  step "skipped: systemd-analyze verify (no systemd on this machine)"
fi

# The template unit's ExecStart for instance 1, expanded as systemd does (%i,
# %l, $$), with /etc/orcd read from the root and orcd-host replaced by echo:
# the arguments orcd@1 would start orcd-host with.
template_args() {
  local exec_start
  exec_start=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" \
    "$root/usr/lib/systemd/system/orcd@.service")
  [ -n "$exec_start" ] || fail "orcd@.service has no ExecStart=/bin/sh -c '...'"
  exec_start=${exec_start//%i/1}
  exec_start=${exec_start//%l/$(hostname -s)}
  exec_start=${exec_start//\$\$/\$}
  exec_start=${exec_start//\/etc\/orcd\//$root\/etc\/orcd\/}
  exec_start=${exec_start//\/usr\/bin\/orcd-host/echo}
  sh -c "$exec_start"
}
step "orcd@.service: the arguments for GPU 1"
args=$(template_args)
echo "$args"
[ "$args" = "--config $root/etc/orcd/worker.yaml --gpu-device 1 --port 8081 --worker-id $(hostname -s)-gpu1" ] ||
  fail "orcd@1 without worker-1.yaml: unexpected arguments: $args"
cp "$root/etc/orcd/worker.yaml" "$root/etc/orcd/worker-1.yaml"
[ "$(template_args)" = "--config $root/etc/orcd/worker-1.yaml --gpu-device 1" ] ||
  fail "orcd@1 with worker-1.yaml: unexpected arguments: $(template_args)"
rm "$root/etc/orcd/worker-1.yaml"

model=$repo/models/stories260K.gguf
[ -f "$model" ] || model=$fixtures/real/stories260K.gguf
step "serve $(basename "$model") with orcd@1's arguments on the CPU (port 0: any free port)"
log=$root/orcd-host.log
# shellcheck disable=SC2086 # the template's arguments, split as systemd does
"$root/usr/bin/orcd-host" $args --model "$model" --device cpu --threads 2 --port 0 2>"$log" &
server_pid=$!
port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's/.*"event":"ready".*"port":"\([0-9]*\)".*/\1/p' "$log" | head -n 1)
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "orcd-host exited during start-up: $(cat "$log")"
  sleep 0.1
done
[ -n "$port" ] || fail "orcd-host not ready within 30 s: $(cat "$log")"
grep -q '"worker_id":"'"$(hostname -s)"'-gpu1"' "$log" || fail "the worker id is not the template's"

step "a completion over HTTP"
# The llama.cpp golden (../shared/fixtures/real/stories260K.golden.json):
# greedy after this prompt is "play with his toys and run around. ...". The
# first tokens' top-1 margins are >= 1 logit, so the CPU backend's rounding
# cannot change them.
response=$(curl -sS --max-time 60 "http://127.0.0.1:$port/v1/completions" \
  -H 'Content-Type: application/json' \
  -d '{"prompt":"Once upon a time, there was a little dog named Max. Max liked to",
       "max_tokens":8,"temperature":0}')
echo "$response"
python3 - "$response" <<'PY' || fail "the completion is not the golden continuation"
import json, sys
body = json.loads(sys.argv[1])
text = body["choices"][0]["text"]
tokens = body["usage"]["completion_tokens"]
assert tokens == 8, f"{tokens} tokens, asked for 8"
assert text.lstrip().startswith("play with his toys"), repr(text)
PY
kill "$server_pid"
wait "$server_pid" || fail "orcd-host did not exit 0 on SIGTERM: $(tail -n 5 "$log")"
server_pid=""

checker=tests/packaging/architecture_plugin_check.sh
if [ -x "$checker" ]; then
  step "an out-of-tree architecture plugin built against the installed SDK ($checker)"
  "$checker" "$root"
fi
step "passed"
