// Public C++ API of the ONNX AffineGrid operator (opset 20), 2-D and 3-D.
#ifndef GRIDSAMPLE_AFFINE_GRID_H_
#define GRIDSAMPLE_AFFINE_GRID_H_

#include "gridsample/threads.h"
#include "gridsample/types.h"

namespace gridsample {

struct AffineGridOptions {
  bool align_corners = false;
  Threads threads;  // the calling thread only unless set (threads.h)
};

// Shape of the grid for `size` = (N, C, H, W) -> (N, H, W, 2) or
// (N, C, D, H, W) -> (N, D, H, W, 3). `size_len` is 4 or 5; writes size_len values.
Status AffineGridOutputShape(const int64_t* size, size_t size_len, int64_t* grid_shape);

// grid = AffineGrid(theta, size), as PyTorch's affine_grid (a size-1 axis has base
// coordinate 0 with either align_corners).
//   theta: (N, 2, 3) for a 4-long size, (N, 3, 4) for a 5-long size; float32,
//          float64, float16 or bfloat16.
//   size:  (N, C, H, W) or (N, C, D, H, W), every entry >= 0, N equal to theta's.
//   grid:  (N, H, W, 2) or (N, D, H, W, 3), same dtype as theta.
Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options = {});

}  // namespace gridsample

#endif  // GRIDSAMPLE_AFFINE_GRID_H_
