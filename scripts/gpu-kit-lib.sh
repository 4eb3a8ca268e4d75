# shellcheck shell=bash
# The GPU check kit's shared steps, sourced by run.sh and side_by_side.sh (it
# travels in the kit as lib.sh). A GPU machine is lent rarely, for minutes, and
# gives back at most 8 files per call, so:
#   - every log and JSON goes to a scratch directory, and after every step
#     OUT/results.tar.gz and OUT/SUMMARY are rewritten: a call cut off at step
#     3 still returns steps 1-2 (two files in OUT, whatever the step count);
#   - one overall deadline (KIT_DEADLINE seconds from kit_begin, default 540):
#     each step runs under min(its own budget, the time left), and a step that
#     cannot get KIT_MIN_STEP seconds is skipped with a line saying so;
#   - JSON files hold JSON only (a step's stderr goes to NAME.err);
#   - LD_LIBRARY_PATH is set for orcd's binaries only (kit_env), never for the
#     machine's own tools (compute-sanitizer, ncu, cmake, the compiler).
# Usage: kit_begin KIT OUT; kit_preflight || kit_end; kit_step ...; kit_end.

KIT_DEADLINE=${KIT_DEADLINE:-540}
KIT_MIN_STEP=${KIT_MIN_STEP:-15}
KIT_PACK_RESERVE=10 # seconds kept back for the last pack

kit_begin() { # kit_begin KIT OUT
  kit=$(cd "$1" && pwd)
  mkdir -p "$2"
  out=$(cd "$2" && pwd)
  kit_start=$SECONDS
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/orcd-kit.XXXXXX")
  results="$scratch/results"
  mkdir -p "$results"
  kit_failed=()
  kit_skipped=()
  kit_lib_path=""
  : >"$results/SUMMARY"
  cp "$kit/COMMIT" "$results/" 2>/dev/null || true
  kit_note "kit $(cat "$kit/COMMIT" 2>/dev/null || echo '(no COMMIT)'), deadline ${KIT_DEADLINE} s"
}

kit_left() { echo $((KIT_DEADLINE - KIT_PACK_RESERVE - (SECONDS - kit_start))); }

kit_note() { # a line in SUMMARY (and on the terminal)
  echo "$*" | tee -a "$results/SUMMARY"
}

kit_pack() {
  cp "$results/SUMMARY" "$out/SUMMARY.tmp" && mv "$out/SUMMARY.tmp" "$out/SUMMARY"
  tar czf "$out/results.tar.gz.tmp" -C "$scratch" results 2>/dev/null &&
    mv "$out/results.tar.gz.tmp" "$out/results.tar.gz"
}

# `"${kit_env[@]}" BINARY ...` runs an orcd binary with the kit's libraries
# and cuBLAS's directory (set by kit_preflight). A tool that launches an orcd
# binary (compute-sanitizer, ncu) takes it before the binary, after its own
# options: the variable then reaches only the launched process.
kit_env=(env)

# kit_step [--json|--jsonl] [--optional] NAME BUDGET COMMAND...: stdout to
# NAME.log (NAME.json, NAME.jsonl: JSON only), stderr to NAME.err; a non-zero exit fails the kit
# unless --optional. Packs the results afterwards.
kit_step() {
  local ext=log optional=0
  while [[ "${1:-}" == --* ]]; do
    case $1 in
      --json) ext=json ;;
      --jsonl) ext=jsonl ;;
      --optional) optional=1 ;;
    esac
    shift
  done
  local name=$1 budget=$2
  shift 2
  local left
  left=$(kit_left)
  if [ "$left" -lt "$KIT_MIN_STEP" ]; then
    kit_note "$name: skipped (${left} s left of the ${KIT_DEADLINE} s deadline)"
    kit_skipped+=("$name")
    kit_pack
    return 0
  fi
  [ "$budget" -gt "$left" ] && budget=$left
  local stdout="$results/$name.$ext"
  local t0=$SECONDS rc=0
  echo "== $name (up to $budget s)"
  timeout --kill-after=5 "$budget" "$@" >"$stdout" 2>"$results/$name.err" || rc=$?
  local took=$((SECONDS - t0))
  if [ "$rc" = 0 ]; then
    kit_note "$name: passed in ${took} s"
  elif [ "$optional" = 1 ]; then
    kit_note "$name: exit $rc in ${took} s (optional: not a failure)"
  else
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && rc="$rc (timed out at $budget s)"
    kit_note "$name: FAILED, exit $rc in ${took} s (see $name.err)"
    kit_failed+=("$name")
    tail -5 "$results/$name.err"
  fi
  [ "$ext" != log ] && [ ! -s "$stdout" ] && rm -f "$stdout"
  kit_pack
  return 0
}

# Where the machine keeps libcublas (the CUDA install, then the loader's
# cache, then pip's nvidia wheels); prints the directory, or nothing.
kit_find_cublas() {
  local nvcc_dir dir
  nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
  for dir in "$nvcc_dir/../lib64" "$nvcc_dir/../targets/x86_64-linux/lib" /usr/local/cuda/lib64 \
    /usr/local/cuda/targets/x86_64-linux/lib; do
    compgen -G "$dir/libcublas.so.*" >/dev/null && { (cd "$dir" && pwd) && return 0; }
  done
  local cached
  cached=$(ldconfig -p 2>/dev/null | awk '/libcublas\.so\./ {print $NF; exit}')
  [ -n "$cached" ] && { dirname "$cached" && return 0; }
  for dir in /usr/local/lib/python3*/dist-packages/nvidia/cublas/lib \
    /usr/lib/python3*/site-packages/nvidia/cublas/lib \
    /usr/local/lib/python3*/site-packages/nvidia/cublas/lib \
    "$HOME"/.local/lib/python3*/site-packages/nvidia/cublas/lib; do
    compgen -G "$dir/libcublas.so.*" >/dev/null && { echo "$dir" && return 0; }
  done
  return 0
}

# Before any step: the GPU and its free memory, glibc against what the kit
# needs, cuBLAS found, every carried binary's libraries resolved (ldd). Writes
# preflight.txt and one verdict line to SUMMARY; non-zero when the kit cannot
# run here (the caller ends at once: the verdict is the result).
kit_preflight() {
  local report="$results/preflight.txt" problems=() gpu=""
  {
    echo "host: $(uname -a)"
    if ! command -v nvidia-smi >/dev/null; then
      problems+=("no GPU: nvidia-smi is not on PATH")
    elif ! gpu=$(nvidia-smi --query-gpu=name,memory.free,memory.total,driver_version \
      --format=csv,noheader 2>&1) || [ -z "$gpu" ]; then
      problems+=("no GPU: nvidia-smi failed: $(echo "$gpu" | head -1)")
      gpu=""
    fi
    echo "gpu (name, free, total, driver): ${gpu:-none}"
    local have need
    have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
    need=$(cat "$kit/GLIBC_NEEDED" 2>/dev/null || echo "")
    echo "glibc: ${have:-unknown} here, ${need:-unknown} needed by the kit"
    if [ -n "$have" ] && [ -n "$need" ] &&
      [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
      problems+=("glibc $have here, the kit needs $need")
    fi
    local cublas
    cublas=$(kit_find_cublas)
    echo "cuBLAS: ${cublas:-not found}"
    [ -z "$cublas" ] && problems+=("cuBLAS not found (CUDA install, ldconfig -p, pip's nvidia wheels)")
    kit_lib_path="$kit/lib${cublas:+:$cublas}"
    kit_env=(env "LD_LIBRARY_PATH=$kit_lib_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    local f missing
    for f in "$kit"/bin/* "$kit"/tests/* "$kit"/plugins/*; do
      [ -f "$f" ] || continue
      missing=$("${kit_env[@]}" ldd "$f" 2>&1 | awk '/not found/ {print $1}' | tr '\n' ' ')
      echo "ldd $(basename "$f"): ${missing:-all found}"
      [ -n "$missing" ] && problems+=("$(basename "$f") lacks ${missing% }")
    done
  } >"$report" 2>&1
  if [ ${#problems[@]} -eq 0 ]; then
    kit_note "preflight: ok ($gpu; cuBLAS in ${kit_lib_path#*:})"
    kit_pack
    return 0
  fi
  local joined
  joined=$(printf '%s; ' "${problems[@]}")
  kit_note "preflight: FAILED: ${joined%; }"
  kit_failed+=(preflight)
  kit_pack
  return 1
}

# The verdict line, the last pack, and the exit status: 0 every step passed,
# 1 a step failed, 3 none failed but some were skipped for time.
kit_end() {
  local rc=0 took=$((SECONDS - kit_start))
  if [ ${#kit_failed[@]} -gt 0 ]; then
    kit_note "gpu kit: failed: ${kit_failed[*]}${kit_skipped[*]:+; skipped: ${kit_skipped[*]}} (${took} s)"
    rc=1
  elif [ ${#kit_skipped[@]} -gt 0 ]; then
    kit_note "gpu kit: incomplete: skipped for time: ${kit_skipped[*]} (${took} s)"
    rc=3
  else
    kit_note "gpu kit: all steps passed (${took} s)"
  fi
  kit_pack
  rm -rf "$scratch"
  exit "$rc"
}
