// AffineGrid's public entry points (affine_grid.h) and its argument rule: validate once, then run
// the best available kernel.
#include "gridsample/affine_grid.h"

#include <string>

#include "api/validation.h"
#include "drivers/fast.h"
#include "reference/reference.h"

namespace gridsample {

Status AffineGridOutputShape(const int64_t* size, size_t size_len, int64_t* grid_shape) {
  if (size == nullptr || grid_shape == nullptr) {
    return Status::InvalidArgument("AffineGrid: size and grid_shape pointers must not be null");
  }
  if (size_len != 4 && size_len != 5) {
    return Status::InvalidArgument(
        "AffineGrid: size: expected 4 values (N, C, H, W) or 5 (N, C, D, H, W), got " +
        std::to_string(size_len));
  }
  for (size_t i = 0; i < size_len; ++i) {
    if (size[i] < 0) {
      std::string given;
      for (size_t j = 0; j < size_len; ++j) given += (j ? ", " : "") + std::to_string(size[j]);
      return Status::InvalidArgument("AffineGrid: size: entry " + std::to_string(i) +
                                     " must be >= 0, got [" + given + "]");
    }
  }
  // (N, C, spatial...) -> (N, spatial..., r)
  grid_shape[0] = size[0];
  for (size_t i = 2; i < size_len; ++i) grid_shape[i - 1] = size[i];
  grid_shape[size_len - 1] = static_cast<int64_t>(size_len) - 2;
  return Status::Ok();
}

Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView& grid, AffineGridGeometry* geometry) {
  constexpr const char* kOp = "AffineGrid";
  int64_t grid_shape[5];
  Status s = AffineGridOutputShape(size, size_len, grid_shape);  // checks size itself
  if (!s.ok()) return s;
  const int r = static_cast<int>(size_len) - 2;
  const int64_t want_theta[3] = {size[0], r, r + 1};
  s = CheckFloatDType(kOp, "theta", theta.dtype);
  if (!s.ok()) return s;
  int64_t theta_count = 0;
  s = CheckInput<Given::kShapesAndDTypes>(kOp, "theta", theta, &theta_count);
  if (!s.ok()) return s;
  bool theta_ok = theta.rank == 3;
  for (size_t i = 0; theta_ok && i < 3; ++i) theta_ok = theta.shape[i] == want_theta[i];
  if (!theta_ok) {
    return Invalid(kOp, "theta: expected shape " + ShapeString(want_theta, 3) + " for size " +
                            ShapeString(size, size_len) + ", got " +
                            ShapeString(theta.shape, theta.rank));
  }
  int64_t grid_count = 0;
  s = CountElements(kOp, "grid", grid_shape, size_len, DTypeSize(theta.dtype), &grid_count);
  if (!s.ok()) return s;
  s = CheckData(kOp, "theta", theta);
  if (!s.ok()) return s;
  s = CheckOutput(kOp, "grid", grid, theta.dtype, grid_shape, size_len, {{theta, theta_count}});
  if (!s.ok()) return s;
  geometry->rank = r;
  geometry->n = size[0];
  geometry->points = 1;
  for (int a = 0; a < r; ++a) {
    geometry->spatial[a] = size[2 + a];
    geometry->points *= size[2 + a];
  }
  return Status::Ok();
}

Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options) {
  AffineGridGeometry geometry;
  Status s = ValidateThreads(options.threads, "AffineGrid");
  if (s.ok()) s = ValidateAffineGrid(theta, size, size_len, grid, &geometry);
  if (!s.ok()) return s;
  if (!fast::TryAffineGrid(geometry, theta, grid, options)) {
    reference::RunAffineGrid(geometry, theta, grid, options);
  }
  return Status::Ok();
}

}  // namespace gridsample
