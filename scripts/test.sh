#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (GPU tests skip, with
# the reason, when no CUDA device is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 900
# The .deb packages built, linted, installed into a scratch root and used
# from there (CUDA off; its own build directory, build-deb-ci).
scripts/package-test.sh
