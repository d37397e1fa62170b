// The discrete sampling rule of multi-scale deformable attention (DeformableSampling::kDiscrete):
// the one pixel a location reads, for the reference and the fast path alike.
//
// It follows deformable_attention_core_func_v2(method='discrete') of RT-DETRv2
// (lyuwenyu/RT-DETR, rtdetrv2_pytorch/src/zoo/rtdetr/utils.py, lines 117-124 at 068dfde) and of
// D-FINE (Peterande/D-FINE, src/zoo/dfine/utils.py, lines 116-131 at 4a1f73a), the same code:
//   sampling_coord = (sampling_grid_l * torch.tensor([[w, h]]) + 0.5).to(torch.int64)
//   sampling_coord = sampling_coord.clamp(0, h - 1)   # "FIX ME? for rectangle input"
//   value_l[s_idx, :, sampling_coord[..., 1], sampling_coord[..., 0]]
// that is, in float32 (the product and the sum each rounded, then truncated toward zero):
//   col = clamp(trunc(x * W + 0.5), 0, H - 1),  row = clamp(trunc(y * H + 0.5), 0, H - 1)
// with the columns clamped to H - 1 too, as there. Where W < H the sources index past the row
// (PyTorch raises an IndexError); here the column is then also clamped to W - 1, so nothing is
// read outside the level. A truncation toward zero of a value below 1 gives at most 0, so the
// clamp's lower end is the same as for a floor; values beyond int64 clamp as any large value
// (PyTorch's conversion is undefined there). A non-finite location reads nothing (the sample is
// 0), as GridSample's non-finite rule (rules/non_finite.h).
#ifndef GRIDSAMPLE_RULES_DISCRETE_TAP_H_
#define GRIDSAMPLE_RULES_DISCRETE_TAP_H_

#include <cstdint>

#include "rules/non_finite.h"

namespace gridsample {

// trunc(coordinate * size + 0.5) clamped to [0, last], in float32 as the sources compute it.
// The callers build with -ffp-contract=off: the product is rounded before the sum.
inline int64_t DiscreteIndex(float coordinate, int64_t size, int64_t last) {
  const float product = coordinate * static_cast<float>(size);
  const float t = product + 0.5f;
  if (!(t >= 1.0f)) return 0;  // truncates to 0 or below (finite coordinates only come here)
  if (static_cast<double>(t) >= static_cast<double>(last)) return last;  // exact: last < 2^53
  return static_cast<int64_t>(t);                                        // t in [1, last): defined
}

// The pixel (col, row) that location (x, y) reads on a level of h x w pixels, or false where the
// location is not finite and nothing is read.
inline bool DiscreteTap(float x, float y, int64_t h, int64_t w, int64_t* col, int64_t* row) {
  if (SamplesNothing(x) || SamplesNothing(y)) return false;
  *col = DiscreteIndex(x, w, (w < h ? w : h) - 1);
  *row = DiscreteIndex(y, h, h - 1);
  return true;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_DISCRETE_TAP_H_
