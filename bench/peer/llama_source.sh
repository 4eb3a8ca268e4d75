# Sourced by the peer scripts: llama.cpp's source in $1/llama.cpp, from the git
# bundle the node-llama-cpp npm package ships (the npm registry is reachable
# from the development machine, GitHub is not). One pinned version for the
# CPU and the GPU peer alike.
fetch_llama_source() {
  local dir=$1
  mkdir -p "$dir"
  if [ ! -d "$dir/node_modules/node-llama-cpp" ]; then
    (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts node-llama-cpp@3.22.1 >&2)
  fi
  if [ ! -d "$dir/llama.cpp" ]; then
    git clone -q "$dir/node_modules/node-llama-cpp/llama/gitRelease.bundle" "$dir/llama.cpp" >&2
  fi
}
