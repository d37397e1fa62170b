#!/usr/bin/env bash
# Installs what gridsample's builds and tests need on a Debian machine; quick when all is there.
# Arguments name more packages for one workflow (bench/run.sh: valgrind).
set -euo pipefail

packages=(
  cmake ninja-build make g++ clang libclang-rt-14-dev   # native builds (CMake's Ninja generator), sanitizers
  ccache                                    # compiles done before, in any clone, not done again (Makefile)
  clang-format                              # scripts/check_format.sh (make check-format)
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libhwy-dev
  libpthreadpool-dev                        # tests of the pthreadpool adapter (threads.h)
  g++-aarch64-linux-gnu qemu-user          # aarch64 (NEON) build, run under qemu
  emscripten nodejs npm                     # wasm build and JS tests
  protobuf-compiler libonnx-dev             # gridsample/onnx's schema from onnx.proto (gen_onnx_schema.sh)
  chromium                                  # browser tests (driven by npm playwright-core)
  libvulkan1                                # the Vulkan loader: WebGPU tests in Node (npm webgpu) on Chromium's SwiftShader
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  # Node.js from elsewhere (NodeSource's nodejs bundles npm and conflicts with Debian's npm
  # package) is fine: a working command is enough.
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi
