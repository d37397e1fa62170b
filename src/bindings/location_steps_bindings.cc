// embind registration of a fused deformable attention's locations' arithmetic
// (api/location_steps.h) for gridsample/onnx (js/core/library_rules.mjs's locationSteps): one
// step on float32 values and int64 dimensions at heap addresses, its numbers in a small block.
#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>

#include "api/location_steps.h"
#include "module_state.h"

namespace gridsample::bindings {
namespace {

// One step's numbers, as JS writes them (doubles at one heap address, js/core/library_rules.mjs):
// the offsets' floats, dimensions (int64s) and rank, the operator (LocationOp's code), whether
// the operand comes first, the operand's floats, dimensions and rank, the step's number.
struct StepArgs {
  double acc, dims, rank, op, first, operand, operand_dims, operand_rank, index;
};

template <typename T>
T* At(double address) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(address));
}

// The step the arguments at `args` describe.
int LocationStepAt(uintptr_t args) {
  const auto& a = *reinterpret_cast<const StepArgs*>(args);
  // (An unknown operator is ApplyLocationStep's error.)
  if (a.rank < 0 || a.operand_rank < 0) {
    return ToCallStatus(Status::InvalidArgument("the locations' arithmetic: a negative rank"));
  }
  LocationStep step;
  step.op = static_cast<LocationOp>(static_cast<int>(a.op));
  step.operand_first = a.first != 0;
  step.operand = At<const float>(a.operand);
  step.dims = At<const int64_t>(a.operand_dims);
  step.rank = static_cast<size_t>(a.operand_rank);
  return ToCallStatus(ApplyLocationStep(At<float>(a.acc), At<const int64_t>(a.dims),
                                        static_cast<size_t>(a.rank), step,
                                        static_cast<int>(a.index)));
}

}  // namespace
}  // namespace gridsample::bindings

EMSCRIPTEN_BINDINGS(gridsample_location_steps) {
  emscripten::function("locationStep", &gridsample::bindings::LocationStepAt);
}
