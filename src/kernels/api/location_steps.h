// The arithmetic that makes a fused deformable attention's sampling locations from their offsets
// (gridsample/onnx's fusion, js/onnx/attention_prologue.mjs): elementwise float32 Mul, Div, Add
// and Sub by operands broadcast into the offsets as ONNX (numpy) broadcasts, each step rounded as
// its ONNX node rounds. Internal, not public API: src/bindings/location_steps_bindings.cc hands it
// to JavaScript.
#ifndef GRIDSAMPLE_API_LOCATION_STEPS_H_
#define GRIDSAMPLE_API_LOCATION_STEPS_H_

#include <cstddef>
#include <cstdint>

#include "gridsample/types.h"

namespace gridsample {

// A step's operator, by the codes the binding passes.
enum class LocationOp : int32_t { kMul = 0, kDiv, kAdd, kSub };

// One step: acc = acc op operand, or operand op acc where `operand_first` (Sub and Div), the
// operand (float32, `rank` dimensions) broadcast into acc.
struct LocationStep {
  LocationOp op = LocationOp::kMul;
  bool operand_first = false;
  const float* operand = nullptr;
  const int64_t* dims = nullptr;
  size_t rank = 0;
};

// Runs `step` on `acc` (float32 of dimensions `dims`, `rank` of them) in place. InvalidArgument,
// acc untouched, where the operand does not broadcast into acc's dimensions (more dimensions, or
// one neither 1 nor acc's) or a pointer is null with elements to read; `index` numbers the step
// in the message.
Status ApplyLocationStep(float* acc, const int64_t* dims, size_t rank, const LocationStep& step,
                         int index);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_LOCATION_STEPS_H_
