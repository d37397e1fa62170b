#!/usr/bin/env bash
# On the NVIDIA machine (the device tool's run, carrying .gpu and js/dist from prepare.sh): gridsample/webgpu through Dawn on Vulkan, then PyTorch's CUDA grid_sample on the same data; the table goes to $OUT/gpu.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/gpu-out}"
mkdir -p "$out" /tmp/gridsample-gpu
for f in .gpu/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES="${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}"
[ -f "$VK_DRIVER_FILES" ] || unset VK_DRIVER_FILES
xz -dc .gpu/node.xz > /tmp/gridsample-gpu/node && chmod +x /tmp/gridsample-gpu/node
rm -rf bench/gpu/node_modules && mkdir -p bench/gpu/node_modules/webgpu && tar -C bench/gpu/node_modules/webgpu -xJf .gpu/webgpu.tar.xz
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.md"
/tmp/gridsample-gpu/node bench/gpu/gpu_bench.mjs --out /tmp/gridsample-gpu/data 2>&1 | tee -a "$out/gpu.log"
PYTHONUNBUFFERED=1 python3 bench/gpu/torch_bench.py /tmp/gridsample-gpu/data | tee -a "$out/gpu.md"
