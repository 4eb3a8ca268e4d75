#!/usr/bin/env bash
# The GPU check kit, step 1 (here): builds orcd with CUDA for sm_90 and packs
# into DIR (default gpu-kit, git-ignored) what an offline GPU machine without
# Debian's libraries needs to check the CUDA backend: binaries and GPU tests
# (stripped), plugins, the shared libraries ldd lists (not glibc), the
# fixtures the GPU tests read, and run.sh. What travels is DIR.tar.xz
# (~56 MiB), which with the tracked tree must stay under 64 MiB.
# Step 2 (there): tar xJf DIR.tar.xz -C /tmp && /tmp/DIR/run.sh OUT  (bench/README.md);
# the side-by-side with llama.cpp in another call: /tmp/DIR/side_by_side.sh /tmp/DIR OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
kit=${1:-gpu-kit}
budget=$((64 * 1024 * 1024))
# Its own build folder, so build/ stays the CPU build the tests use.
bdir=${ORCD_KIT_BUILD:-build-gpu-kit}

cmake -S . -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORCD_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$bdir" -j"$(nproc)" --target orcd-host orcd-run orcd-bench orcd-synth orcd_plugin_llama \
  orcd_plugin_gpt orcd_plugin_gemma orcd_plugin_q4 orcd_plugin_mxfp4 quant_cuda_test orcd_cuda_backend_gpu_test

rm -rf "$kit"
mkdir -p "$kit"/{bin,tests,plugins,lib,fixtures,peer}
for b in orcd-host orcd-run orcd-bench orcd-synth; do cp "$bdir/bin/$b" "$kit/bin/"; done
for t in quant_cuda_test orcd_cuda_backend_gpu_test; do cp "$bdir/tests/$t" "$kit/tests/"; done
cp "$bdir"/lib/orcd/plugins/*.so "$kit/plugins/"
strip --strip-debug "$kit"/bin/* "$kit"/tests/* "$kit"/plugins/*

# Shared libraries (glibc and the loader stay: the GPU machine has its own;
# so does cuBLAS, 600+ MiB, which comes from its CUDA 13 install).
for f in "$kit"/bin/* "$kit"/tests/* "$kit"/plugins/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libcublas*) continue ;;
  esac
  cp -L "$lib" "$kit/lib/"
done
strip --strip-unneeded "$kit"/lib/* 2>/dev/null || true

# ICU's data library is 31 MiB (7 of the tarball's) of locales, collations,
# converters and dictionaries. orcd asks ICU for NFC and character properties
# (built into libicuuc) and a code point's title case (word break rules): the
# kit's libicudata holds the break rules and the few items beside them (1.2
# MiB, 0.3 compressed), and the room goes to fixtures. icupkg and genccode: icu-devtools (a
# dependency of libicu-dev).
for data in "$kit"/lib/libicudata.so.*; do
  [ -f "$data" ] || continue
  major=${data##*.so.}
  work=$(mktemp -d)
  objcopy -O binary --only-section=.rodata "$data" "$work/icudt${major}l.dat"
  mkdir "$work/pkg" "$work/gen"
  icupkg -l "$work/icudt${major}l.dat" | grep -vE '^(brkitr/[^.]*\.(brk|res)|(cnvalias|uemoji|ulayout|unames)\.icu|(nfkc|nfkc_cf|uts46)\.nrm|(pool|res_index|root|en|en_US|en_US_POSIX)\.res)$' \
    >"$work/drop.txt"
  # A package's item names carry its file name (icudtNNl), in and out.
  icupkg --ignore-deps -r "$work/drop.txt" "$work/icudt${major}l.dat" "$work/pkg/icudt${major}l.dat" \
    >/dev/null 2>&1
  # (It exits 2 on the dictionaries the break rules name and the kit leaves
  # out: ICU segments those scripts without them, and no script there has case.)
  icupkg -l "$work/pkg/icudt${major}l.dat" >"$work/kept.txt" 2>/dev/null || true
  grep -qx 'brkitr/word.brk' "$work/kept.txt" ||
    { echo "gpu kit: the trimmed ICU data lacks the word break rules" >&2; exit 1; }
  genccode -a gcc -e "icudt${major}" -d "$work/gen" "$work/pkg/icudt${major}l.dat" >/dev/null
  gcc -shared -Wl,-soname,"libicudata.so.$major" -o "$data" "$work"/gen/*.S
  rm -rf "$work"
done

# Only the fixtures the kit's steps read (one list: scripts/gpu-kit-fixtures.txt).
fixtures=../shared/fixtures
grep -v '^#' scripts/gpu-kit-fixtures.txt | while read -r pattern; do
  [ -n "$pattern" ] || continue
  found=0
  for f in "$fixtures"/$pattern; do
    [ -f "$f" ] || continue
    mkdir -p "$kit/fixtures/$(dirname "${f#"$fixtures"/}")"
    cp "$f" "$kit/fixtures/${f#"$fixtures"/}"
    found=1
  done
  [ "$found" = 1 ] || { echo "gpu kit: no fixture matches $pattern" >&2; exit 1; }
done
# The newest glibc symbol version the kit's binaries need (the preflight
# compares it with the GPU machine's).
for f in "$kit"/bin/* "$kit"/tests/* "$kit"/plugins/* "$kit"/lib/*; do
  objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true
done | sed 's/GLIBC_//' | sort -uV | tail -1 >"$kit/GLIBC_NEEDED"
cp scripts/gpu-kit-run.sh "$kit/run.sh"
cp scripts/gpu-kit-lib.sh "$kit/lib.sh"
cp scripts/gpu-kit-serve.sh "$kit/serve.sh"
# The peer, built there: llama.cpp's trimmed source and the side-by-side run.
bench/peer/pack_llama_cuda.sh "$kit/peer/llama.cpp.tar.xz"
cp bench/peer/gpu_side_by_side.sh "$kit/side_by_side.sh"
cp bench/peer/gpu_peer_build.sh "$kit/peer_build.sh"
git rev-parse HEAD > "$kit/COMMIT"

# -9e: the kit with orcd-host and its libraries (the serve step) is 58 MiB so,
# 60 at the default level: over the budget with the tree (2 min more here).
XZ_OPT="-T0 -9e" tar cJf "$kit.tar.xz" "$kit"
# What travels: the kit's tarball and the working tree's tracked files.
size=$(stat -c %s "$kit.tar.xz")
tree=$(git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "gpu kit: $kit.tar.xz $((size / 1024 / 1024)) MiB + tracked tree $((tree / 1024 / 1024)) MiB" \
  "($(git rev-parse --short HEAD))"
if [ $((size + tree)) -gt "$budget" ]; then
  echo "the gpu kit and the tree are over the 64 MiB that travels to the GPU machine:" >&2
  du -sh "$kit"/* "$kit"/fixtures/* >&2
  exit 1
fi
