// Public C++ API of multi-scale deformable attention (Deformable DETR's sampling, fused).
#ifndef GRIDSAMPLE_MULTI_SCALE_DEFORMABLE_ATTENTION_H_
#define GRIDSAMPLE_MULTI_SCALE_DEFORMABLE_ATTENTION_H_

#include <cstdint>

#include "gridsample/threads.h"
#include "gridsample/types.h"

namespace gridsample {

struct MultiScaleDeformableAttentionOptions {
  Threads threads;  // the calling thread only unless set (threads.h)
};

// The value's levels: `count` feature maps stacked along the value's S axis. int64 as the
// ONNX and PyTorch tensors hold them (the pointers are typed, so no other dtype is taken).
struct DeformableLevels {
  const int64_t* spatial_shapes = nullptr;     // [count, 2]: H_l, W_l per level, each >= 1
  const int64_t* level_start_index = nullptr;  // [count]: the cumulative sum of H_l * W_l
  int64_t count = 0;                           // L >= 1
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
