// Public C++ API of prepared calls: a sampling call validated once from shapes, dtypes and
// options, then run on new data any number of times.
#ifndef GRIDSAMPLE_SAMPLER_H_
#define GRIDSAMPLE_SAMPLER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/matrices.h"
#include "gridsample/types.h"
#include "gridsample/warp_affine.h"

namespace gridsample {

struct SamplerPlan;  // the prepared state (src/kernels/api/sampler_plan.h)
class Sampler;
Status AdoptPlan(const SamplerPlan& plan, Sampler* sampler);  // (api/sampler.cc)

// One operator call prepared for tensors of given shapes and dtypes (the views' data is not
// read when preparing): every shape, dtype and option rule is checked once, the output shape is
// fixed, and Run then takes data pointers only, checking no more than that they are usable (not
// null for a tensor with elements, the output overlapping no input). The free functions
// (GridSample, AffineGrid, ...) prepare and run one of these per call, so a Sampler's results
// are theirs, bit for bit, and its errors their messages.
//
// Run is const and keeps no state: one Sampler may run from several threads at once, on
// different data. A Sampler holds no tensor memory; it is move-only.
//
//   Sampler warp;
//   Status s = Sampler::GridSample(x_spec, grid_spec, options, &warp);  // once
//   for (each frame) s = warp.Run(frame, grid, out);                     // per frame
class Sampler {
 public:
  Sampler();
  ~Sampler();
  Sampler(Sampler&&) noexcept;
  Sampler& operator=(Sampler&&) noexcept;
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Prepares GridSample(x, grid) (grid_sample.h): inputs x, grid.
  static Status GridSample(const TensorView& x, const TensorView& grid,
                           const GridSampleOptions& options, Sampler* sampler);
  // Prepares GridSampleChannelsLast(x, grid) (warp_affine.h): inputs x, grid.
  static Status GridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                       const GridSampleOptions& options, Sampler* sampler);
  // Prepares WarpFlow(x, flow) (warp_flow.h): inputs x, flow.
  static Status WarpFlow(const TensorView& x, const TensorView& flow,
                         const GridSampleOptions& options, Sampler* sampler);
  // Prepares AffineGrid(theta, size) (affine_grid.h): input theta; `size` is copied.
  static Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                           const AffineGridOptions& options, Sampler* sampler);
  // Prepares WarpAffine(x, m) and WarpPerspective(x, h) (warp_affine.h) with the matrix in
  // `space` (matrices.h) into Y of y's shape (its Ho and Wo; y's data is not read): inputs x, the
  // matrix. `fill` (C values, or null) is copied. A pixel-space matrix is inverted at each Run
  // (whose error it is when it cannot be).
  static Status WarpAffine(const TensorView& x, const TensorView& theta, const TensorView& y,
                           const GridSampleOptions& options, const double* fill, MatrixSpace space,
                           Sampler* sampler);
  static Status WarpPerspective(const TensorView& x, const TensorView& h, const TensorView& y,
                                const GridSampleOptions& options, const double* fill,
                                MatrixSpace space, Sampler* sampler);
  // Prepares Remap and WarpFlowChannelsLast (warp_affine.h): inputs x and the map (or x, then
  // the two planes). `fill` (C values, or null) is copied.
  static Status Remap(const TensorView& x, const TensorView& map, const GridSampleOptions& options,
                      const double* fill, Sampler* sampler);
  static Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
                      const GridSampleOptions& options, const double* fill, Sampler* sampler);
  static Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow,
                                     const GridSampleOptions& options, const double* fill,
                                     Sampler* sampler);
  static Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x,
                                     const TensorView& flow_y, const GridSampleOptions& options,
                                     const double* fill, Sampler* sampler);
  // Prepares Remap and WarpFlowChannelsLast with the maps' DATA given now, for a map that stays
  // the same from frame to frame (lens undistortion, stabilisation, a fixed effect): as OpenCV's
  // convertMaps once, then remap per frame. Every rule is checked as the functions above check
  // it, and the maps' data as Remap checks it (not null); the maps are then read once and turned
  // into a plan of their own (the caller's maps may change or go): per output pixel the offsets
  // and weights of its taps, or for uint8 bilinear of 1 to 4 channels the fixed-point weights.
  // Run takes X alone (input_count() is 1) and writes the bytes Remap writes on the same
  // target, in every mode, padding, dtype, channel count and fill. Calls the fast path does not
  // take (dtypes other than uint8 and float32, sides smaller than the mode's window, a CPU
  // without SIMD) keep a copy of the maps and run as Remap does. The plan is made for the SIMD
  // target in use when preparing and runs there even after SetTarget.
  // Memory (plan_bytes()), per output pixel: 12 bytes for uint8 bilinear of 1 to 4 channels,
  // plus 20 for each pixel whose taps leave X (a lens map's edges); otherwise at most 4 bytes
  // plus 4 per tap (nearest 8, bilinear 20, bicubic 68), less where zeros padding leaves whole
  // row segments outside X; a kept copy is the maps' size. OutOfRange when it cannot be
  // allocated.
  //
  //   Sampler undistort;
  //   Sampler::RemapFixed(frame_spec, map_x, map_y, options, nullptr, &undistort);  // once
  //   for (each frame) undistort.Run(&frame, 1, out);                               // per frame
  static Status RemapFixed(const TensorView& x, const TensorView& map,
                           const GridSampleOptions& options, const double* fill, Sampler* sampler);
  static Status RemapFixed(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
                           const GridSampleOptions& options, const double* fill, Sampler* sampler);
  static Status WarpFlowChannelsLastFixed(const TensorView& x, const TensorView& flow,
                                          const GridSampleOptions& options, const double* fill,
                                          Sampler* sampler);
  static Status WarpFlowChannelsLastFixed(const TensorView& x, const TensorView& flow_x,
                                          const TensorView& flow_y,
                                          const GridSampleOptions& options, const double* fill,
                                          Sampler* sampler);
  // The same for GridSampleChannelsLast with the grid's data given now (a fixed spatial
  // transformer, a video effect): as above, every dtype of grid (those the fast path does not
  // take, anything but float32, kept as a copy).
  static Status GridSampleChannelsLastFixed(const TensorView& x, const TensorView& grid,
                                            const GridSampleOptions& options, Sampler* sampler);
  // Each returns the operator's own error for a rule its arguments break, or InvalidArgument
  // for a null `sampler`, and leaves *sampler unchanged then; OutOfRange when the few hundred
  // bytes of the prepared state cannot be allocated.

  // False for a default-constructed or moved-from Sampler, whose Run returns InvalidArgument.
  bool prepared() const { return plan_ != nullptr; }
  // The inputs Run takes, in the order the preparing function names them.
  size_t input_count() const;
  // Y's dtype, rank and shape (output_rank() values), and its size in bytes.
  DType output_dtype() const;
  size_t output_rank() const;
  const int64_t* output_shape() const;
  size_t output_bytes() const;
  // Bytes the Sampler holds beyond its few hundred bytes of description: a fixed map's plan or
  // copy (RemapFixed, WarpFlowChannelsLastFixed), else 0.
  size_t plan_bytes() const;

  // Runs on `inputs` (input_count() data pointers, in order) into y, of output_shape().
  Status Run(const void* const* inputs, size_t count, void* y) const;
  // The same with Y as a view, whose shape and dtype must be the prepared output's (the free
  // functions' check, and message).
  Status Run(const void* const* inputs, size_t count, const MutableTensorView& y) const;
  // Two-input calls (x and its coordinates: a grid, flow, matrix or map) and AffineGrid's one.
  Status Run(const void* x, const void* coordinates, void* y) const {
    const void* inputs[2] = {x, coordinates};
    return Run(inputs, 2, y);
  }
  Status Run(const void* theta, void* grid) const { return Run(&theta, 1, grid); }

 private:
  // *sampler holds a copy of `plan` (the preparing functions' last step).
  friend Status AdoptPlan(const SamplerPlan& plan, Sampler* sampler);
  std::unique_ptr<const SamplerPlan> plan_;
};

}  // namespace gridsample

#endif  // GRIDSAMPLE_SAMPLER_H_
