// The call block the JS layer writes into the heap (js/core/prepared.mjs: a call's operator,
// options, dtypes and shapes) and the operators that prepare from it, each registered by its own
// embind file: a module prepares the operators it links, no others.
#ifndef GRIDSAMPLE_BINDINGS_CALL_BLOCK_H_
#define GRIDSAMPLE_BINDINGS_CALL_BLOCK_H_

#include <cstddef>
#include <cstdint>

#include "api/sampler_plan.h"
#include "module_state.h"

namespace gridsample::bindings {

// Dimensions a tensor may list in the block: as many as the JS layer accepts (MAX_DIMS of
// js/core/plain_args.mjs), so that the library's own rules judge every rank.
inline constexpr int kBlockDims = 32;

// The block (js/core/wasm_heap.mjs's CALL_BLOCK offsets); Prepare writes the output's rank and
// shape back.
struct CallBlock {
  int32_t op;  // BlockOp
  int32_t mode, padding, align_corners;
  int32_t dtype[2];
  int32_t rank[2];
  int64_t shape[2][kBlockDims];
  int32_t size_len, out_rank;
  int64_t size[5];  // AffineGrid's size: its first 5 values (a longer one is refused unread)
  int64_t out_shape[2 + kMaxSpatialRank];
};
static_assert(sizeof(CallBlock) == 672 && offsetof(CallBlock, shape) == 32 &&
                  offsetof(CallBlock, size_len) == 544 && offsetof(CallBlock, size) == 552 &&
                  offsetof(CallBlock, out_shape) == 592,
              "js/core/wasm_heap.mjs's CALL_BLOCK describes this layout");

// The operators, by the codes js/core/prepared.mjs writes.
enum class BlockOp : int32_t {
  kGridSample = 0,
  kGridSampleChannelsLast,
  kWarpFlow,
  kAffineGrid,
  kCount
};

// Input i's dtype and shape (its data is not read when preparing).
inline TensorView BlockSpec(const CallBlock& b, int i) {
  return {nullptr, static_cast<DType>(b.dtype[i]), b.shape[i], static_cast<size_t>(b.rank[i])};
}

// The block's sampling options, with the module's threads.
inline GridSampleOptions BlockOptions(const CallBlock& b) {
  return SamplingOptions(b.mode, b.padding, b.align_corners != 0);
}

// How an operator prepares from a block; the table of the operators this module links.
using BlockPreparer = Status (*)(const CallBlock& block, SamplerPlan* plan);
inline BlockPreparer& PreparerOf(BlockOp op) {
  static BlockPreparer table[static_cast<int>(BlockOp::kCount)] = {};
  return table[static_cast<int>(op)];
}

// A static object of an operator's embind file: its preparer in the table.
struct RegisterPreparer {
  RegisterPreparer(BlockOp op, BlockPreparer preparer) { PreparerOf(op) = preparer; }
};

}  // namespace gridsample::bindings

#endif  // GRIDSAMPLE_BINDINGS_CALL_BLOCK_H_
