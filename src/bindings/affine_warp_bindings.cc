// WarpAffine (the affine source, and pixel-space matrices through the perspective source) from a
// call block: the whole output or a band of its rows (prepared_bindings.cc runs it).
#include "call_block.h"

namespace gridsample {
namespace {

const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kWarpAffine,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             return bindings::PrepareMatrixWarp(&PrepareWarpAffine,
                                                                                b, plan);
                                           });

}  // namespace
}  // namespace gridsample
