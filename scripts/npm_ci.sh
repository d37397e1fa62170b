#!/usr/bin/env bash
# Installs the npm packages of each folder given (relative to the repository) from its committed lockfile, unless node_modules was installed from that very lockfile already.
#
# Install scripts are skipped: onnxruntime-node's would fetch CUDA binaries from outside the npm
# registry (its CPU binaries are in the package itself); no other package here needs one.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in "$@"; do
  stamp="$dir/node_modules/.gridsample-lock-sha256"
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    echo "$want" > "$stamp"
  fi
done
