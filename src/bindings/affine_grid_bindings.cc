// embind registration of AffineGrid: its call block and its output-shape query.
#include <emscripten/bind.h>

#include <cstdint>

#include "call_block.h"
#include "gridsample/affine_grid.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::ModuleThreads;
using bindings::Shape;
using bindings::ToCallStatus;

// AffineGrid from a call block (prepared_bindings.cc runs it).
const bindings::RegisterPreparer kPreparer(
    bindings::BlockOp::kAffineGrid, [](const bindings::CallBlock& b, SamplerPlan* plan) {
      AffineGridOptions options;
      options.align_corners = b.align_corners != 0;
      options.threads = ModuleThreads();
      // A size of other than 4 or 5 values is refused before it is read.
      const size_t len = static_cast<size_t>(b.size_len < 0 ? 0 : b.size_len);
      return PrepareAffineGrid(bindings::BlockSpec(b, 0), b.size, len, options, plan);
    });

int AffineGridOutputShapeAdapter(uintptr_t size, int size_len, uintptr_t grid_shape) {
  return ToCallStatus(AffineGridOutputShape(Shape(size), static_cast<size_t>(size_len),
                                            reinterpret_cast<int64_t*>(grid_shape)));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_affine_grid) {
  using namespace emscripten;
  using namespace gridsample;
  function("affineGridOutputShape", &AffineGridOutputShapeAdapter);
}
