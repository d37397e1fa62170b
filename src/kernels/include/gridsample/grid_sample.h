// Public C++ API of the ONNX GridSample operator (opsets 16, 20, 22), any spatial rank.
#ifndef GRIDSAMPLE_GRID_SAMPLE_H_
#define GRIDSAMPLE_GRID_SAMPLE_H_

#include "gridsample/threads.h"
#include "gridsample/types.h"

namespace gridsample {

struct GridSampleOptions {
  Mode mode = Mode::kLinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
  Threads threads;  // the calling thread only unless set (threads.h)
};

// Shape of Y for X (N, C, D1..Dr) and grid (N, O1..Or, r): (N, C, O1..Or).
// Writes x.rank values to `y_shape` (which must hold that many) after validating
// both shapes; dtypes and data pointers are not looked at.
Status GridSampleOutputShape(const TensorView& x, const TensorView& grid, int64_t* y_shape);

// Y = GridSample(X, grid).
//   x:    (N, C, D1..Dr), r >= 1; float32, float64, float16, bfloat16, int8, uint8,
//         int16, uint16, int32 or uint32.
//   grid: (N, O1..Or, r), coordinates innermost first (x = W, y = H, z = D, ...);
//         float32, float64, float16 or bfloat16.
//   y:    (N, C, O1..Or), same dtype as x; must not overlap x or grid.
// Integer results are rounded half to even and saturated. Computation happens in
// double when x is float64, int32 or uint32, else in float32 (grid values are
// converted to that type).
// Validates everything first; on error nothing is written and the message names
// the argument, what was expected and what was given.
Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options = {});

}  // namespace gridsample

#endif  // GRIDSAMPLE_GRID_SAMPLE_H_
