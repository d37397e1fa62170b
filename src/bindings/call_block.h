// The call block the JS layer writes into the heap (js/core/prepared.mjs: a call's operator,
// options, dtypes and shapes; an image call's output size, matrix space, fill and band of rows)
// and the operators that prepare from it, each registered by its own embind file: a module
// prepares the operators it links, no others.
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
  // AffineGrid's size: its first 5 values (a longer one is refused unread); an image call's Y
  // shape (N, Ho, Wo, C).
  int64_t size[5];
  int64_t out_shape[2 + kMaxSpatialRank];
  // The image calls': the matrix space (MatrixSpace's code), the fill colour (fill_count 0 for
  // none, else 1 to 4 values), a band of rows (rows_height < 0: the whole output).
  int32_t space, fill_count;
  double fill[4];
  int64_t rows_height, rows_begin;
};
static_assert(sizeof(CallBlock) == 728 && offsetof(CallBlock, shape) == 32 &&
                  offsetof(CallBlock, size_len) == 544 && offsetof(CallBlock, size) == 552 &&
                  offsetof(CallBlock, out_shape) == 592 && offsetof(CallBlock, space) == 672 &&
                  offsetof(CallBlock, fill) == 680 && offsetof(CallBlock, rows_height) == 712,
              "js/core/wasm_heap.mjs's CALL_BLOCK describes this layout");

// The operators, by the codes js/core/prepared.mjs writes.
enum class BlockOp : int32_t {
  kGridSample = 0,
  kGridSampleChannelsLast,
  kWarpFlow,
  kAffineGrid,
  kWarpAffine,  // the image calls (inputs X and the matrix or map, or X and two planes)
  kWarpPerspective,
  kRemap,
  kWarpFlowImage,
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

// An image call's Y (N, Ho, Wo, C) as the block's size gives it (its data is not read).
inline TensorView BlockOutput(const CallBlock& b) {
  return {nullptr, static_cast<DType>(b.dtype[0]), b.size, 4};
}

// An image call's fill colour, or null.
inline const double* BlockFill(const CallBlock& b) { return b.fill_count > 0 ? b.fill : nullptr; }

// An image call's maps: input 1, and for two planes (rank 3) input 1's spec again.
inline size_t BlockMaps(const CallBlock& b, TensorView* maps) {
  maps[0] = maps[1] = BlockSpec(b, 1);
  return b.rank[1] == 3 ? 2 : 1;
}

// An image warp by a matrix (PrepareWarpAffine, PrepareWarpPerspective) prepared from the block:
// X, the matrix, Y, the band of rows where rows_height >= 0, the options, fill and space; the
// messages its runs give name the matrix and the inverse option in the module's words.
using MatrixWarpPreparer = Status (*)(const TensorView&, const TensorView&, const TensorView&,
                                      const OutputRows*, const GridSampleOptions&, const double*,
                                      MatrixSpace, SamplerPlan*);
inline Status PrepareMatrixWarp(MatrixWarpPreparer prepare, const CallBlock& b, SamplerPlan* plan) {
  const OutputRows rows{b.rows_height, b.rows_begin};
  const MatrixSpace space = static_cast<MatrixSpace>(b.space);
  const Status s =
      prepare(BlockSpec(b, 0), BlockSpec(b, 1), BlockOutput(b),
              b.rows_height >= 0 ? &rows : nullptr, BlockOptions(b), BlockFill(b), space, plan);
  const MatrixWords& words = ModuleMatrixWords();
  if (s.ok() && words.given) {
    const bool perspective = static_cast<BlockOp>(b.op) == BlockOp::kWarpPerspective;
    plan->input_names[1] = words.names[perspective][space != MatrixSpace::kNormalized].c_str();
    plan->inverse_option = words.inverse_option.c_str();
  }
  return s;
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
