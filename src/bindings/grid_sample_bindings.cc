// embind registration of GridSample (NCHW): its call, output-shape query and tap folding.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/grid_sample.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::SamplingOptions;
using bindings::Shape;
using bindings::ToCallStatus;

// Every pointer below is a byte offset into the wasm heap chosen by the JS layer; shapes
// are int64 arrays there. The C++ API validates everything else.
int GridSampleAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, int rank, uintptr_t grid,
                      int grid_dtype, uintptr_t grid_shape, uintptr_t y, uintptr_t y_shape,
                      int mode, int padding, bool align_corners) {
  const size_t r = static_cast<size_t>(rank);
  return ToCallStatus(GridSample(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), r},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), r},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), r},
      SamplingOptions(mode, padding, align_corners)));
}

// Y's shape for X's and the grid's shapes (data is checked by the call itself).
int GridSampleOutputShapeAdapter(uintptr_t x_shape, int x_rank, uintptr_t grid_shape, int grid_rank,
                                 uintptr_t y_shape) {
  TensorView x;
  x.shape = Shape(x_shape);
  x.rank = static_cast<size_t>(x_rank);
  TensorView grid;
  grid.shape = Shape(grid_shape);
  grid.rank = static_cast<size_t>(grid_rank);
  return ToCallStatus(GridSampleOutputShape(x, grid, reinterpret_cast<int64_t*>(y_shape)));
}

// Whether the planner folds X's taps for this shape, dtype and mode (gridsample/webgpu does too).
bool GridSampleFoldsTapsAdapter(uintptr_t x_shape, int x_rank, int x_dtype, int mode) {
  return GridSampleFoldsTaps(Shape(x_shape), static_cast<size_t>(x_rank),
                             static_cast<DType>(x_dtype), static_cast<Mode>(mode));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_grid_sample) {
  using namespace emscripten;
  using namespace gridsample;
  function("gridSample", &GridSampleAdapter);
  function("gridSampleOutputShape", &GridSampleOutputShapeAdapter);
  function("gridSampleFoldsTaps", &GridSampleFoldsTapsAdapter);
}
