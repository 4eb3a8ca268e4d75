#!/usr/bin/env bash
# Builds the Debian packages orcd, orcd-plugins and orcd-sdk
# (packaging/CMakeLists.txt). A release keeps CUDA kernels for every supported
# GPU generation (Turing through Blackwell). Environment:
#   ORCD_CUDA=OFF          CPU-only packages (CI: scripts/package-test.sh)
#   CUDA_ARCHS="90"        fewer GPU generations (a quicker build)
#   ORCD_DEB_BUILD_DIR=D   build directory (default build-deb); the .debs land there
# Compiler flags are Debian's (dpkg-buildflags: stack protector, fortified libc
# calls, format checks), as for a package built by Debian itself.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ORCD_DEB_BUILD_DIR:-build-deb}
scripts/install-deps.sh

# -g is dropped: the packages are stripped (CPACK_STRIP_FILES), so debug
# information would only slow the build.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CFLAGS_MAINT_STRIP=-g DEB_CXXFLAGS_MAINT_STRIP=-g
cppflags=$(dpkg-buildflags --get CPPFLAGS)
CFLAGS="$(dpkg-buildflags --get CFLAGS) $cppflags"
CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $cppflags"
export CFLAGS CXXFLAGS

# -O2, not CMake's Release -O3: the optimization level CI tests and the
# benchmarks measure (RelWithDebInfo), and GCC 12's -O3 stops the build with a
# false -Wrestrict inside libstdc++'s std::string (a known GCC 12 regression).
# CMAKE_SKIP_INSTALL_ALL_DEPENDENCY: cpack installs what the build below made
# instead of building every target (benchmarks, emulated-device test plugins).
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DORCD_BUILD_TESTS=OFF \
  -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DCMAKE_INSTALL_PREFIX=/usr -DORCD_CUDA="${ORCD_CUDA:-AUTO}" \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-75;80;86;89;90;100;120}" \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON
# Every target that the packages install (a target missing here fails cpack's
# install step, naming the file).
cmake --build "$build" -j"$(nproc)" --target \
  orcd-host orcd-inspect orcd-run orcd-tokenize orcd-synth \
  orcd_plugin_llama orcd_plugin_gpt orcd_plugin_gemma orcd_plugin_q4 orcd_plugin_mxfp4
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB)
ls -l "$build"/*.deb
