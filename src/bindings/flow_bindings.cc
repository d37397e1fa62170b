// embind registration of the flow source: WarpFlow (NCHW: its call block and output shape) and
// image flows (their call block).
#include <emscripten/bind.h>

#include <cstdint>

#include "api/validation.h"
#include "call_block.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"
#include "module_state.h"

namespace gridsample {
namespace {

// The NCHW WarpFlow from a call block (prepared_bindings.cc runs it).
const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kWarpFlow,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             return PrepareWarpFlow(bindings::BlockSpec(b, 0),
                                                                    bindings::BlockSpec(b, 1),
                                                                    bindings::BlockOptions(b),
                                                                    plan);
                                           });

// Channels-last images (images/flows.mjs): one interleaved flow, or dx and dy planes.
const bindings::RegisterPreparer kImagePreparer(
    bindings::BlockOp::kWarpFlowImage, [](const bindings::CallBlock& b, SamplerPlan* plan) {
      TensorView flows[2];
      const int count = static_cast<int>(bindings::BlockMaps(b, flows));
      return PrepareWarpFlowChannelsLast(bindings::BlockSpec(b, 0), flows, count,
                                         bindings::BlockOptions(b), bindings::BlockFill(b), plan);
    });

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_warp_flow) {
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("warpFlowOutputShape", &ShapeQuery<&WarpFlowOutputShape>);
}
