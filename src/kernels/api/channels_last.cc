// GridSampleChannelsLast's public entry points (warp_affine.h) and its argument rule: validate
// once, then the fast path, else the generic scalar path (reference/channels_last_ref.cc).
#include <string>

#include "api/run.h"
#include "api/sampler_plan.h"
#include "api/validation.h"
#include "gridsample/warp_affine.h"

namespace gridsample {
namespace {

constexpr const char* kOp = "GridSampleChannelsLast";

}  // namespace

Status ValidateGridSampleChannelsLastInputs(const TensorView& x, const TensorView& grid,
                                            ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(kOp, x, &x_count);
  if (!s.ok()) return s;
  s = CheckFloatDType(kOp, "grid", grid.dtype);
  if (!s.ok()) return s;
  int64_t grid_count = 0;
  s = CheckInput<Given::kShapesAndDTypes>(kOp, "grid", grid, &grid_count);
  if (!s.ok()) return s;
  if (grid.rank != 4 || grid.shape[3] != 2) {
    return Invalid(kOp, "grid: expected shape [N, Ho, Wo, 2] (rank 4), got " +
                            ShapeString(grid.shape, grid.rank));
  }
  if (grid.shape[0] != x.shape[0]) {
    return Invalid(kOp, "grid: expected batch size N = " + std::to_string(x.shape[0]) +
                            " (X's), got shape " + ShapeString(grid.shape, grid.rank));
  }
  const int64_t y_shape[4] = {x.shape[0], grid.shape[1], grid.shape[2], x.shape[3]};
  return ChannelsLastOutput(kOp, x, x_count, y_shape, geometry);
}

Status ValidateGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                      const MutableTensorView& y, ChannelsLastGeometry* geometry) {
  Status s = ValidateGridSampleChannelsLastInputs(x, grid, geometry);
  if (s.ok()) s = CheckData(kOp, "X", x);
  if (s.ok()) s = CheckData(kOp, "grid", grid);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {geometry->n, geometry->out_h, geometry->out_w, geometry->c};
  return CheckOutput(kOp, "Y", y, x.dtype, y_shape, 4,
                     {{x, ElementCount(x)}, {grid, ElementCount(grid)}});
}

Status GridSampleChannelsLastOutputShape(const TensorView& x, const TensorView& grid,
                                         int64_t* y_shape) {
  ChannelsLastGeometry geometry;
  Status s = ValidateGridSampleChannelsLastInputs(x, grid, &geometry);
  if (!s.ok()) return s;
  y_shape[0] = geometry.n;
  y_shape[1] = geometry.out_h;
  y_shape[2] = geometry.out_w;
  y_shape[3] = geometry.c;
  return Status::Ok();
}

Status PrepareGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                     const GridSampleOptions& options, SamplerPlan* plan) {
  Status s = ValidateGridSampleOptions(options, kOp);
  if (s.ok()) s = ValidateGridSampleChannelsLastInputs(x, grid, &plan->pixels);
  if (!s.ok()) return s;
  const ChannelsLastGeometry& geo = plan->pixels;
  const int64_t y_shape[4] = {geo.n, geo.out_h, geo.out_w, geo.c};
  PlanInputs(kOp, x, "grid", grid, plan);
  PlanOutput(x.dtype, y_shape, 4, plan);
  plan->options = options;
  // Also at one channel, where X and Y have NCHW's bytes: NCHW's blend sums from the first
  // product, not from +0 (-0 where every weight is 0 and the window's pixels negative; this path
  // and the reference give +0), and blends vectors whose taps all fall outside (0 * inf with a
  // non-finite X), which this one skips.
  plan->execute = [](const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
    RunFrom<GridAt>(PixelsProblem{p.pixels, in[0], GridAt{in[1]}, y, p.options});
    return Status::Ok();
  };
  return Status::Ok();
}

Status Sampler::GridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                       const GridSampleOptions& options, Sampler* sampler) {
  return PrepareSampler(kOp, sampler, [&](SamplerPlan* plan) {
    return PrepareGridSampleChannelsLast(x, grid, options, plan);
  });
}

Status Sampler::GridSampleChannelsLastFixed(const TensorView& x, const TensorView& grid,
                                            const GridSampleOptions& options, Sampler* sampler) {
  return PrepareSampler(kOp, sampler, [&](SamplerPlan* plan) {
    Status s = PrepareGridSampleChannelsLast(x, grid, options, plan);
    if (s.ok()) s = CheckData(kOp, "grid", grid);
    return s.ok() ? PlanFixedCoordinates(&grid, 1, FixedCoordinates::kGrid, plan) : s;
  });
}

Status GridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                              const MutableTensorView& y, const GridSampleOptions& options) {
  return PrepareAndRun(
      [&](SamplerPlan* plan) { return PrepareGridSampleChannelsLast(x, grid, options, plan); },
      {x.data, grid.data}, y);
}

}  // namespace gridsample
