// embind registration of channels-last GridSample (the grid source of the image warps' driver).
#include <emscripten/bind.h>

#include <cstdint>

#include "api/validation.h"
#include "call_block.h"
#include "gridsample/warp_affine.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::ShapeQuery;

// Channels-last GridSample from a call block (prepared_bindings.cc runs it).
const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kGridSampleChannelsLast,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             return PrepareGridSampleChannelsLast(
                                                 bindings::BlockSpec(b, 0),
                                                 bindings::BlockSpec(b, 1),
                                                 bindings::BlockOptions(b), plan);
                                           });

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_channels_last) {
  using namespace emscripten;
  using namespace gridsample;
  function("gridSampleChannelsLastOutputShape", &ShapeQuery<&GridSampleChannelsLastOutputShape>);
}
