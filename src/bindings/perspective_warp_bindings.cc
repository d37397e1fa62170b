// WarpPerspective (the perspective source) from a call block: the whole output or a band of its
// rows, the homography in any space (prepared_bindings.cc runs it).
#include "call_block.h"

namespace gridsample {
namespace {

const bindings::RegisterPreparer kPreparer(
    bindings::BlockOp::kWarpPerspective, [](const bindings::CallBlock& b, SamplerPlan* plan) {
      const OutputRows rows{b.rows_height, b.rows_begin};
      return PrepareWarpPerspective(bindings::BlockSpec(b, 0), bindings::BlockSpec(b, 1),
                                    bindings::BlockOutput(b), b.rows_height >= 0 ? &rows : nullptr,
                                    bindings::BlockOptions(b), bindings::BlockFill(b),
                                    static_cast<MatrixSpace>(b.space), plan);
    });

}  // namespace
}  // namespace gridsample
