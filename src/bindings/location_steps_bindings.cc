// embind registration of a fused deformable attention's locations' arithmetic
// (api/location_steps.h) for gridsample/onnx (js/core/library_rules.mjs's locationSteps): one
// step on float32 values and int64 dimensions at heap addresses.
#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>

#include "api/location_steps.h"
#include "module_state.h"

namespace gridsample::bindings {
namespace {

const int64_t* Dims(uintptr_t p) { return reinterpret_cast<const int64_t*>(p); }

// Step `index` (its operator by LocationOp's code, `first`: the operand first) on the `rank`
// dimensions at `dims` of the floats at `acc`, the operand's floats at `operand` of `operand_rank`
// dimensions at `operand_dims`.
int LocationStepAt(uintptr_t acc, uintptr_t dims, int rank, int op, bool first, uintptr_t operand,
                   uintptr_t operand_dims, int operand_rank, int index) {
  if (rank < 0 || operand_rank < 0 || op < 0 || op > static_cast<int>(LocationOp::kSub)) {
    return ToCallStatus(Status::InvalidArgument("the locations' arithmetic: a bad step"));
  }
  LocationStep step;
  step.op = static_cast<LocationOp>(op);
  step.operand_first = first;
  step.operand = reinterpret_cast<const float*>(operand);
  step.dims = Dims(operand_dims);
  step.rank = static_cast<size_t>(operand_rank);
  return ToCallStatus(ApplyLocationStep(reinterpret_cast<float*>(acc), Dims(dims),
                                        static_cast<size_t>(rank), step, index));
}

}  // namespace
}  // namespace gridsample::bindings

EMSCRIPTEN_BINDINGS(gridsample_location_steps) {
  emscripten::function("locationStep", &gridsample::bindings::LocationStepAt);
}
