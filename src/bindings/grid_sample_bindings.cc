// embind registration of GridSample (NCHW): its call block, output-shape query and tap folding.
#include <emscripten/bind.h>

#include <cstdint>

#include "call_block.h"
#include "gridsample/grid_sample.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::Shape;
using bindings::ToCallStatus;

// GridSample from a call block (prepared_bindings.cc runs it).
const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kGridSample,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             return PrepareGridSample(bindings::BlockSpec(b, 0),
                                                                      bindings::BlockSpec(b, 1),
                                                                      bindings::BlockOptions(b),
                                                                      plan);
                                           });

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

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_grid_sample) {
  using namespace emscripten;
  using namespace gridsample;
  function("gridSampleOutputShape", &GridSampleOutputShapeAdapter);
}
