// Argument validation for the public calls: shapes, dtypes, pointers, sizes.
#ifndef GRIDSAMPLE_VALIDATE_H_
#define GRIDSAMPLE_VALIDATE_H_

#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"

namespace gridsample {

// A validated GridSample problem: every size fits, every pointer is usable.
struct GridSampleGeometry {
  int rank = 0;                       // r, number of spatial axes
  int64_t n = 0, c = 0;
  int64_t in[kMaxSpatialRank] = {};   // D1..Dr, outermost first
  int64_t out[kMaxSpatialRank] = {};  // O1..Or, outermost first
  int64_t in_spatial = 0;             // D1 * .. * Dr
  int64_t out_spatial = 0;            // O1 * .. * Or
};

// Checks x and grid; when y is non-null also its shape, dtype, pointer and that
// it does not overlap x or grid. Fills `geometry` on success. With `shapes_only`,
// dtypes and data pointers are not looked at (for GridSampleOutputShape).
Status ValidateGridSample(const TensorView& x, const TensorView& grid,
                          const MutableTensorView* y, GridSampleGeometry* geometry,
                          bool shapes_only = false);

// Mode and padding hold values of their enums (a cast integer may not).
Status ValidateGridSampleOptions(const GridSampleOptions& options);

// A validated AffineGrid problem.
struct AffineGridGeometry {
  int rank = 0;  // 2 or 3 spatial axes
  int64_t n = 0;
  int64_t spatial[3] = {};  // (H, W) or (D, H, W), outermost first
  int64_t points = 0;       // product of spatial
};

// Checks theta, size and (when non-null) grid. Fills `geometry` on success.
Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView* grid, AffineGridGeometry* geometry);

}  // namespace gridsample

#endif  // GRIDSAMPLE_VALIDATE_H_
