// A workload of the native benchmark: its inputs (bench.mjs's manifest) and one timed call.
#ifndef GRIDSAMPLE_BENCH_WORKLOAD_H_
#define GRIDSAMPLE_BENCH_WORKLOAD_H_

// Whether the library has the channels-last WarpAffine (bench/CMakeLists.txt): without it the
// rgba8 workload is reported as not available.
#ifndef GRIDSAMPLE_BENCH_WARP_AFFINE
#define GRIDSAMPLE_BENCH_WARP_AFFINE 0
#endif

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gridsample/gridsample.h"

struct Workload {
  std::string name;
  // "GridSample": x, grid -> y. "AffineGrid": theta (in `x`), size -> grid (in `y`).
  // "WarpAffineRGBA8": image (1, H, W, 4) in `x8`, theta (1, 2, 3) in `grid` -> `y8`.
  std::string op;
  std::vector<int64_t> x_shape, grid_shape, y_shape, size;
  std::vector<float> x, grid;
  std::vector<uint8_t> x8;
  gridsample::GridSampleOptions gs_options;
  bool has_baseline = false;
  gridsample::GridSampleOptions
      baseline_options;  // NAME/baseline: gs_options with the baseline's mode and padding
  // GridSample's layout: X (N, C, H, W), or channels-last (N, H, W, C: GridSampleChannelsLast).
  // A baseline of the other layout has X and Y of its own (the same values).
  bool channels_last = false, baseline_channels_last = false;
  std::vector<int64_t> baseline_x_shape, baseline_y_shape;
  std::vector<float> baseline_x, baseline_y;
  gridsample::AffineGridOptions ag_options;
  size_t out_elems = 0;
  size_t floor_bytes = 0;   // what the memcpy floor copies: (in + out) / 2 bytes
  std::vector<float> y;     // written by every timed call (float outputs)
  std::vector<uint8_t> y8;  // written by every timed call (uint8 outputs)
  // WarpAffineRGBA8's reference: AffineGrid then GridSample on the NCHW image (the definition
  // of the fused warp), on buffers made once.
  std::vector<int64_t> nchw_shape, ref_grid_shape, y_nchw_shape, ref_size;
  std::vector<uint8_t> x8_nchw, y8_nchw;
  std::vector<float> ref_grid;
  // The other channels-last kernels on the same image, timed per target (--targets): the
  // image as float32 (x8's values), and the outputs of the float calls.
  std::vector<float> xf, yf;
};

// (1, C, H, W) -> (1, H, W, C) of a uint8 image (the channels-last warp's reference output).
void ToInterleaved(const std::vector<uint8_t>& chw, int64_t h, int64_t w, int64_t c,
                   std::vector<uint8_t>* hwc);

// What one timed call runs: the public API, the scalar reference, or the public API with the
// baseline's options; for WarpAffineRGBA8 also the other channels-last kernels on its image:
// GridSampleChannelsLast on the grid AffineGrid makes of theta (uint8 or float32 image), and
// WarpAffine on the float32 image.
enum class Impl { kPublic, kReference, kBaseline, kGridU8, kGridF32, kWarpF32 };

// One call of `impl` on `w` (kBaseline: GridSample workloads with a baseline only), the
// public API on `threads` threads of the library's pool.
gridsample::Status Run(Workload& w, Impl impl, int threads = 1);

// The manifest entry `j` with its inputs read from `dir` into `w`; false and `error` when it
// cannot be loaded.
bool LoadWorkload(const std::string& dir, const nlohmann::json& j, Workload* w, std::string* error);

#endif  // GRIDSAMPLE_BENCH_WORKLOAD_H_
