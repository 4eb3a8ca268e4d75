#!/usr/bin/env bash
# Installs the pinned validator packages (npm ci, once) and validates the
# Kubernetes manifests. Args: MANIFEST_DIR BIN_DIR PLUGIN_DIR MODEL_GGUF
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/kubernetes-models" ] || [ ! -d "$here/node_modules/@kubernetes/client-node" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
exec node "$here/validate_manifests.mjs" "$@"
