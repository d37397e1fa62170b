// embind registration of MultiScaleDeformableAttention: its call and its output-shape query, each
// taking the heap address of one DeformableBlock.
#include <emscripten/bind.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "api/validation.h"
#include "call_block.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::kBlockDims;
using bindings::ModuleThreads;
using bindings::Shape;
using bindings::ToCallStatus;

// The inputs value, sampling_locations and attention_weights, in this order.
constexpr int kInputs = 3;

// The block js/core/deformable_block.mjs writes (js/core/wasm_heap.mjs's DEFORMABLE_BLOCK
// offsets): heap addresses (0 for data in a shape query), dtype codes, ranks and int64 shapes of
// the inputs (as many dimensions as the JS layer accepts, so that the library judges every
// rank), the levels and the output. The shape query writes y_shape; the call reads it (as the JS
// layer writes it back: the block is written whole before each crossing).
struct DeformableBlock {
  uintptr_t data[kInputs];
  int32_t dtype[kInputs];
  int32_t rank[kInputs];
  // The levels as js/core/deformable_levels.mjs writes them: `level_count` (H, W) pairs,
  // `level_count` starts, then, where `points_listed` is nonzero, `level_count` points per
  // level; all int64 (the library checks their values).
  uintptr_t levels;
  int32_t level_count, points_listed;
  uintptr_t y;
  int32_t sampling;  // DeformableSampling's code (0 bilinear, 1 discrete; the library checks it)
  int64_t shape[kInputs][kBlockDims];
  int64_t y_shape[3];  // [N, Lq, M * D]
};
static_assert(sizeof(DeformableBlock) == 848 && offsetof(DeformableBlock, dtype) == 12 &&
                  offsetof(DeformableBlock, rank) == 24 &&
                  offsetof(DeformableBlock, levels) == 36 &&
                  offsetof(DeformableBlock, level_count) == 40 &&
                  offsetof(DeformableBlock, points_listed) == 44 &&
                  offsetof(DeformableBlock, y) == 48 && offsetof(DeformableBlock, sampling) == 52 &&
                  offsetof(DeformableBlock, shape) == 56 &&
                  offsetof(DeformableBlock, y_shape) == 824,
              "js/core/wasm_heap.mjs's DEFORMABLE_BLOCK describes this layout");

// Ranks the block can hold: the library's own rules judge the rest.
Status CheckRanks(const DeformableBlock& b) {
  for (int i = 0; i < kInputs; ++i) {
    if (b.rank[i] < 0 || b.rank[i] > kBlockDims) {
      return Status::InvalidArgument("MultiScaleDeformableAttention: a rank outside 0.." +
                                     std::to_string(kBlockDims));
    }
  }
  return Status::Ok();
}

// Input i of the block.
TensorView Input(const DeformableBlock& b, int i) {
  return {reinterpret_cast<const void*>(b.data[i]), static_cast<DType>(b.dtype[i]), b.shape[i],
          static_cast<size_t>(b.rank[i])};
}

DeformableLevels Levels(const DeformableBlock& b) {
  const int64_t n = b.level_count < 0 ? 0 : b.level_count;
  DeformableLevels l;
  l.spatial_shapes = Shape(b.levels);
  l.level_start_index = Shape(b.levels) + 2 * n;
  l.points_per_level = b.points_listed != 0 ? Shape(b.levels) + 3 * n : nullptr;
  l.count = b.level_count;
  return l;
}

// y's shape [N, Lq, M * D] (of value's dtype) written into the block at `block`, or the
// library's error on the inputs' shapes and dtypes and the levels (no data is looked at).
int OutputShape(uintptr_t block) {
  auto* b = reinterpret_cast<DeformableBlock*>(block);
  Status s = CheckRanks(*b);
  DeformableAttentionGeometry geometry;
  if (s.ok()) {
    s = ValidateDeformableAttentionInputs(Input(*b, 0), Levels(*b), Input(*b, 1), Input(*b, 2),
                                          &geometry);
  }
  if (s.ok()) DeformableAttentionOutputShape(geometry, b->y_shape);
  return ToCallStatus(s);
}

// The call the block at `block` describes: y (of value's dtype, of the block's y_shape) from the
// inputs and levels, with the module's threads.
int Call(uintptr_t block) {
  const auto& b = *reinterpret_cast<const DeformableBlock*>(block);
  const Status ranks = CheckRanks(b);
  if (!ranks.ok()) return ToCallStatus(ranks);
  MultiScaleDeformableAttentionOptions options;
  options.threads = ModuleThreads();
  options.sampling = static_cast<DeformableSampling>(b.sampling);
  const MutableTensorView out{reinterpret_cast<void*>(b.y), static_cast<DType>(b.dtype[0]),
                              b.y_shape, 3};
  return ToCallStatus(MultiScaleDeformableAttention(Input(b, 0), Levels(b), Input(b, 1),
                                                    Input(b, 2), out, options));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_deformable_attention) {
  using namespace emscripten;
  using namespace gridsample;
  function("multiScaleDeformableAttention", &Call);
  function("multiScaleDeformableAttentionOutputShape", &OutputShape);
}
