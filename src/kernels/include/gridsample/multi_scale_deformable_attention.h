// Public C++ API of multi-scale deformable attention (Deformable DETR's sampling, fused).
#ifndef GRIDSAMPLE_MULTI_SCALE_DEFORMABLE_ATTENTION_H_
#define GRIDSAMPLE_MULTI_SCALE_DEFORMABLE_ATTENTION_H_

#include <cstdint>

#include "gridsample/threads.h"
#include "gridsample/types.h"

namespace gridsample {

// How each sampling point reads its level (both written from their sources' formulas below).
enum class DeformableSampling : int {
  // Bilinear at (x * W_l - 0.5, y * H_l - 0.5), taps outside the level reading 0: the chain of
  // per-level GridSample (bilinear, zeros, align_corners 0) that Deformable DETR writes.
  kBilinear = 0,
  // One pixel, RT-DETRv2's and D-FINE's method='discrete' (deformable_attention_core_func_v2):
  //   col = clamp(trunc(x * W_l + 0.5), 0, H_l - 1),  row = clamp(trunc(y * H_l + 0.5), 0, H_l - 1)
  // x * W_l and + 0.5 each rounded to float32, trunc toward zero. Both are clamped to H_l - 1, as
  // the sources do ("FIX ME? for rectangle input"): on a level wider than high the columns past
  // H_l - 1 are never read. Where W_l < H_l the sources index past the row (an error in
  // PyTorch); here col is then also clamped to W_l - 1. Where x * W_l + 0.5 lies beyond int64,
  // the clamp applies as to any large value (PyTorch's conversion is undefined there).
  kDiscrete,
};

struct MultiScaleDeformableAttentionOptions {
  Threads threads;  // the calling thread only unless set (threads.h)
  DeformableSampling sampling = DeformableSampling::kBilinear;
};

// The value's levels: `count` feature maps stacked along the value's S axis. int64 as the
// ONNX and PyTorch tensors hold them (the pointers are typed, so no other dtype is taken).
struct DeformableLevels {
  const int64_t* spatial_shapes = nullptr;     // [count, 2]: H_l, W_l per level, each >= 1
  const int64_t* level_start_index = nullptr;  // [count]: the cumulative sum of H_l * W_l
  int64_t count = 0;                           // L >= 1
  // [count]: P_l, the sampling points of level l, each >= 1 (D-FINE's num_points_list); the
  // locations and weights then list each query and head's sum(P_l) points level by level:
  // sampling_locations [N, Lq, M, sum(P_l), 2], attention_weights [N, Lq, M, sum(P_l)]. Null:
  // every level has the same P, given by the shapes [N, Lq, M, L, P, 2] and [N, Lq, M, L, P].
  const int64_t* points_per_level = nullptr;
};

// Shape of the output for these inputs: [N, Lq, M * D] (3 values written to `y_shape`) after
// validating the shapes, dtypes and levels (the inputs' data pointers are not looked at).
Status MultiScaleDeformableAttentionOutputShape(const TensorView& value,
                                                const DeformableLevels& levels,
                                                const TensorView& sampling_locations,
                                                const TensorView& attention_weights,
                                                int64_t* y_shape);

// Y = MultiScaleDeformableAttention(value, levels, sampling_locations, attention_weights):
//   value:              [N, S, M, D]; float32, float16 or bfloat16 (computed in float32);
//                       S = sum of H_l * W_l, level l at rows [start_l, start_l + H_l * W_l).
//   sampling_locations: [N, Lq, M, L, P, 2], (x, y) in [0, 1] of each level; float32, float16
//                       or bfloat16.
//   attention_weights:  [N, Lq, M, L, P]; float32, float16 or bfloat16.
//   y:                  [N, Lq, M * D], value's dtype; must overlap no input.
// y[n, q, m * D + d] = sum over l, p of attention_weights[n, q, m, l, p] * (the bilinear sample
// of channel d of head m's H_l x W_l map at pixel (x * W_l - 0.5, y * H_l - 0.5)), taps outside
// the level reading 0: the chain of per-level GridSample (bilinear, zeros, align_corners 0, at
// 2 * loc - 1), stack, Mul and ReduceSum that exporters write. A non-finite location samples 0
// (as GridSample); float32 accumulation, one rounding to the value's dtype at the end.
// Validates everything first; on error nothing is written and the one-line message names the
// argument, what was expected and what was given.
Status MultiScaleDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                     const TensorView& sampling_locations,
                                     const TensorView& attention_weights,
                                     const MutableTensorView& y,
                                     const MultiScaleDeformableAttentionOptions& options = {});

}  // namespace gridsample

#endif  // GRIDSAMPLE_MULTI_SCALE_DEFORMABLE_ATTENTION_H_
