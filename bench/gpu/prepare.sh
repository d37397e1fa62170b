#!/usr/bin/env bash
# Here, before a device run: gathers in .gpu/ (ignored by git) what the NVIDIA machine lacks for bench/gpu: Node.js (this machine's, xz-compressed), the npm package webgpu's Linux x64 build, and Debian's Vulkan loader; then `make wasm` so that js/dist travels too (bench/gpu/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
rm -rf .gpu && mkdir -p .gpu
xz -T0 -6 -c "$(readlink -f "$(command -v node)")" > .gpu/node.xz
# The webgpu package of tests/js (scripts/npm_ci.sh tests/js installs it), Linux x64 only.
src=tests/js/node_modules/webgpu
[ -d "$src" ] || { echo "prepare.sh: $src is missing: scripts/npm_ci.sh tests/js" >&2; exit 1; }
tar -C "$src" -cf - package.json index.js dist/linux-x64 | xz -T0 -6 > .gpu/webgpu.tar.xz
# Debian's Vulkan loader for amd64, downloaded, unpacked there (run_on_device.sh).
lists=/tmp/gridsample-amd64-lists
mkdir -p "$lists/partial"
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists="$lists")
apt-get "${o[@]}" update -qq
(cd .gpu && apt-get "${o[@]}" download libvulkan1 >/dev/null)
make wasm >/dev/null
du -sh .gpu js/dist
echo "prepare.sh: carry .gpu and js/dist; command: bash bench/gpu/run_on_device.sh"
