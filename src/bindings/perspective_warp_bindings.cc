// WarpPerspective (the perspective source) from a call block: the whole output or a band of its
// rows, the homography in any space (prepared_bindings.cc runs it).
#include "call_block.h"

namespace gridsample {
namespace {

const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kWarpPerspective,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             return bindings::PrepareMatrixWarp(
                                                 &PrepareWarpPerspective, b, plan);
                                           });

}  // namespace
}  // namespace gridsample
