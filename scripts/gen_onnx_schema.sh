#!/usr/bin/env bash
# Generates js/dist/onnx_pb.mjs, gridsample/onnx's protobuf schema (@bufbuild/protobuf code from protoc-gen-es), from upstream ONNX's onnx.proto as Debian's libonnx-dev installs it; make wasm runs it.
#
# Generated at build time, never edited or committed (js/dist is ignored and ships in the npm
# tarball). Quick when the output is newer than onnx.proto and the generator's package-lock.
set -euo pipefail
cd "$(dirname "$0")/.."
proto=/usr/include/onnx/onnx.proto
out=js/dist/onnx_pb.mjs
if [ ! -f "$proto" ]; then
  echo "gen_onnx_schema.sh: $proto is missing (Debian libonnx-dev: scripts/setup.sh installs it)" >&2
  exit 1
fi
if [ "$out" -nt "$proto" ] && [ "$out" -nt js/package-lock.json ] && [ "$out" -nt "$0" ]; then exit 0; fi
scripts/npm_ci.sh js # protoc-gen-es is a devDependency of js/
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# target=js: ES module code alone (the package's own onnx_api.d.cts types the API; the schema is internal).
protoc --plugin=protoc-gen-es=js/node_modules/.bin/protoc-gen-es --es_out="$tmp" --es_opt=target=js \
  -I"$(dirname "$proto")" "$proto"
mkdir -p js/dist
mv "$tmp/onnx_pb.js" "$out"
echo "gen_onnx_schema.sh: wrote $out ($(wc -c <"$out") bytes) from $proto"
