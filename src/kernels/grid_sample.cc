// Public NCHW entry points (GridSample, WarpFlow): validate once, then run the best available
// kernel.
#include "gridsample/grid_sample.h"

#include "fast/fast.h"
#include "gridsample/warp_flow.h"
#include "reference/reference.h"
#include "validate.h"

namespace gridsample {

Status GridSampleOutputShape(const TensorView& x, const TensorView& grid, int64_t* y_shape) {
  if (y_shape == nullptr) return Status::InvalidArgument("GridSample: y_shape pointer is null");
  GridSampleGeometry geometry;
  Status s = ValidateGridSample(x, grid, nullptr, &geometry, /*shapes_only=*/true);
  if (!s.ok()) return s;
  y_shape[0] = geometry.n;
  y_shape[1] = geometry.c;
  for (int a = 0; a < geometry.rank; ++a) y_shape[2 + a] = geometry.out[a];
  return Status::Ok();
}

bool GridSampleFoldsTaps(const int64_t* x_shape, size_t rank, DType dtype, Mode mode) {
  if (x_shape == nullptr || rank < 3 || rank > 2 + kMaxSpatialRank) return false;
  GridSampleGeometry geometry;
  geometry.rank = static_cast<int>(rank) - 2;
  geometry.n = x_shape[0];
  geometry.c = x_shape[1];
  geometry.in_spatial = 1;
  for (int a = 0; a < geometry.rank; ++a) {
    geometry.in[a] = x_shape[2 + a];
    if (geometry.in[a] <= 0 || geometry.in_spatial > (int64_t{1} << 62) / geometry.in[a]) {
      return false;
    }
    geometry.in_spatial *= geometry.in[a];
  }
  GridSampleOptions options;
  options.mode = mode;
  return fast::CoversGridSample(geometry, dtype, DType::kFloat32, options);
}

Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options) {
  GridSampleGeometry geometry;
  Status s = ValidateGridSampleOptions(options);
  if (s.ok()) s = ValidateGridSample(x, grid, &y, &geometry);
  if (!s.ok()) return s;
  if (!fast::TryGridSample(geometry, x, grid, y, options)) {
    reference::RunGridSample(geometry, x, grid, y, options);
  }
  return Status::Ok();
}

Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options) {
  GridSampleGeometry geometry;
  Status s = ValidateGridSampleOptions(options, "WarpFlow");
  if (s.ok()) s = ValidateWarpFlow(x, flow, y, &geometry);
  if (!s.ok()) return s;
  if (!fast::TryWarpFlow(geometry, x, flow, y, options)) {
    reference::RunWarpFlow(geometry, x, flow, y, options);
  }
  return Status::Ok();
}

}  // namespace gridsample
