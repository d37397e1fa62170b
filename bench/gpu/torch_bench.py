#!/usr/bin/env python3
"""PyTorch's CUDA grid_sample on the data gpu_bench.mjs wrote (same inputs, same GPU): times it
as gpu_bench.mjs timed gridsample/webgpu, checks that both outputs agree, measures the GPU's
copy bandwidth, and prints a Markdown table (bench/gpu/README.md).

usage: python3 bench/gpu/torch_bench.py DIR [--batch K] [--rounds R]
"""
import argparse
import json
import os
import statistics
import sys

import numpy as np
import torch
import torch.nn.functional as F

# ONNX / gridsample mode names as PyTorch spells them.
TORCH_MODE = {"linear": "bilinear", "nearest": "nearest", "cubic": "bicubic"}


def load(directory, name, suffix, shape):
    data = np.fromfile(os.path.join(directory, f"{name}.{suffix}.bin"), dtype="<f4")
    return torch.from_numpy(data.reshape(shape))


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_call(fn, batch, rounds):
    """A call submitted alone and waited for (median, p90 ms), and the kernel's time: `batch`
    calls between two CUDA events, divided by `batch` (median, p90 ms)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    single, batched = [], []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        start.record()
        fn()
        end.record()
        end.synchronize()
        single.append(start.elapsed_time(end))
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()
        batched.append(start.elapsed_time(end) / batch)
    return (quantile(single, 0.5), quantile(single, 0.9)), (quantile(batched, 0.5), quantile(batched, 0.9))


def copy_bandwidth():
    """Device-to-device copy of 1 GiB, counting bytes read and written (GB/s): the memory
    bandwidth a kernel can reach here."""
    a = torch.empty(2**28, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    (_, _), (ms, _) = time_call(lambda: b.copy_(a), 5, 5)
    return 2 * a.numel() * 4 / (ms * 1e-3) / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)
    props = torch.cuda.get_device_properties(0)
    peak = copy_bandwidth()
    adapter = manifest["adapter"]
    print(f"GPU: {props.name} (PyTorch {torch.__version__}); WebGPU adapter: {adapter['vendor']} {adapter['architecture']} {adapter['description']}")
    print(f"device-to-device copy: {peak:.0f} GB/s (read + write); {args.batch} calls per batch, {args.rounds} rounds\n")
    print("| workload | gridsample/webgpu kernel ms (p90) | PyTorch CUDA kernel ms (p90) | ratio (PyTorch / ours) | ours GB/s (% of copy) | call ms ours / PyTorch | max abs diff (tolerance) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    failures = 0
    for w in manifest["workloads"]:
        name, options = w["name"], w["options"]
        x = load(args.dir, name, "x", w["x"]).cuda()
        grid = load(args.dir, name, "grid", w["grid"]).cuda()
        ours = load(args.dir, name, "y", w["y"])
        mode = TORCH_MODE[options["mode"]]
        rank = len(w["x"]) - 2
        if rank == 3 and mode == "bicubic":  # PyTorch has no tricubic grid_sample
            torch_kernel, torch_call, diff = None, None, None
        else:
            def call():
                return F.grid_sample(x, grid, mode=mode, padding_mode=options["paddingMode"], align_corners=bool(options["alignCorners"]))
            torch_call, torch_kernel = time_call(call, args.batch, args.rounds)
            diff = (call().cpu() - ours).abs().max().item()
        tol = w["tol"] * max(1.0, ours.abs().max().item())
        if diff is not None and not diff <= tol:
            failures += 1
        k = w["webgpu"]["kernelMedianMs"]
        # Bytes a kernel must move at least: X (the part a grid reaches may be less), the grid, Y.
        moved = 4 * (x.numel() + grid.numel() + ours.numel())
        gbs = moved / (k * 1e-3) / 1e9
        kernel = f"{torch_kernel[0]:.3f} ({torch_kernel[1]:.3f})" if torch_kernel else "n/a (no tricubic)"
        ratio = f"{torch_kernel[0] / k:.2f}x" if torch_kernel else "n/a"
        calls = f"{w['webgpu']['callMedianMs']:.3f} / {torch_call[0]:.3f}" if torch_call else f"{w['webgpu']['callMedianMs']:.3f} / n/a"
        check = f"{diff:.2e} ({tol:.0e})" if diff is not None else "n/a"
        print(f"| {name} | {k:.3f} ({w['webgpu']['kernelP90Ms']:.3f}) | {kernel} | {ratio} | {gbs:.0f} ({100 * gbs / peak:.0f}%) | {calls} | {check} |")
    print(f"\n{failures} workload(s) outside the tolerance")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
