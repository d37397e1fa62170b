// Remap (the map sources) from a call block: one map of (x, y) pairs, or two planes
// (prepared_bindings.cc runs it).
#include "call_block.h"

namespace gridsample {
namespace {

const bindings::RegisterPreparer kPreparer(bindings::BlockOp::kRemap,
                                           [](const bindings::CallBlock& b, SamplerPlan* plan) {
                                             TensorView maps[2];
                                             const int count =
                                                 static_cast<int>(bindings::BlockMaps(b, maps));
                                             return PrepareRemap(bindings::BlockSpec(b, 0), maps,
                                                                 count, bindings::BlockOptions(b),
                                                                 bindings::BlockFill(b), plan);
                                           });

}  // namespace
}  // namespace gridsample
