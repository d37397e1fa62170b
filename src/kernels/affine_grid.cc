// Public AffineGrid entry points: validate once, then run the best available kernel.
#include "gridsample/affine_grid.h"

#include <string>

#include "fast/fast.h"
#include "reference/reference.h"
#include "validate.h"

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

Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options) {
  AffineGridGeometry geometry;
  Status s = ValidateThreads(options.threads, "AffineGrid");
  if (s.ok()) s = ValidateAffineGrid(theta, size, size_len, &grid, &geometry);
  if (!s.ok()) return s;
  if (!fast::TryAffineGrid(geometry, theta, grid, options)) {
    reference::RunAffineGrid(geometry, theta, grid, options);
  }
  return Status::Ok();
}

}  // namespace gridsample
