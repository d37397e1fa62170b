// The fused deformable-attention kernel's plans (drivers/attention_driver.cc): a chunk of one
// query and head's sampling points as the rows of S their taps read and the taps' weights, by the
// bilinear rule vectorised over points or by the discrete rule point by point.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_DRIVERS_ATTENTION_PLANS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_DRIVERS_ATTENTION_PLANS_INL_H_
#undef GRIDSAMPLE_DRIVERS_ATTENTION_PLANS_INL_H_
#else
#define GRIDSAMPLE_DRIVERS_ATTENTION_PLANS_INL_H_
#endif

#include <cstdint>

#include "drivers/attention_args.h"
#include "hwy/highway.h"
#include "planner/axis_plan-inl.h"
#include "planner/lanes-inl.h"
#include "planner/limits.h"
#include "rules/axis_line.h"
#include "rules/discrete_tap.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Points planned at once (their taps stay in L1 while every channel is blended from them).
constexpr int kAttentionChunk = 64;

// The taps of a chunk of points, tap by tap (row by row, as the reference sums them), point by
// point: the tap's row of S (-1 where zero padding drops it, or the location is not finite) and
// its weight wx * wy.
struct ChunkTaps {
  HWY_ALIGN int32_t pixel[4][kAttentionChunk];
  HWY_ALIGN float weight[4][kAttentionChunk];
};

// Plans points [j0, j0 + count) of one query and head: the unit location's pixel
// (rules/axis_line.h), clamped far outside as the planner clamps, the planner's bilinear taps
// and weights (AxisTaps), then zero padding and the non-finite rule per tap, a vector of points
// at a time. `loc` holds the chunk's (x, y) pairs.
HWY_INLINE void PlanPoints(const AttentionArgs& a, const float* HWY_RESTRICT loc, int64_t j0,
                           int count, ChunkTaps* HWY_RESTRICT taps) {
  const DF d;
  const DI di;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const VF half = hn::Set(d, 0.5f);
  const VF far = hn::Set(d, kFarPixels<float>);
  const VI zero = hn::Zero(di), one = hn::Set(di, 1), minus_one = hn::Set(di, -1);
  HWY_ALIGN float padded[2 * kMaxLanes] = {};
  for (int p = 0; p < count; p += lanes) {
    const int64_t j = j0 + p;
    const int live = count - p < lanes ? count - p : lanes;
    const float* pairs = loc + 2 * p;
    if (live < lanes) {  // the last points: never read past the locations
      for (int k = 0; k < 2 * live; ++k) padded[k] = pairs[k];
      pairs = padded;
    }
    VF u, v;
    hn::LoadInterleaved2(d, pairs, u, v);
    const VF w = hn::LoadU(d, a.level_w + j), h = hn::LoadU(d, a.level_h + j);
    const auto ok = hn::And(hn::IsFinite(u), hn::IsFinite(v));
    // Pixel positions, kept defined where the location is not finite (those taps are dropped).
    VF x = hn::IfThenElseZero(ok, GRIDSAMPLE_PIXEL_OF_UNIT(u, w, half));
    VF y = hn::IfThenElseZero(ok, GRIDSAMPLE_PIXEL_OF_UNIT(v, h, half));
    x = MinNoNaN(MaxNoNaN(x, hn::Neg(far)), hn::Add(w, far));
    y = MinNoNaN(MaxNoNaN(y, hn::Neg(far)), hn::Add(h, far));
    VI ix, iy;
    VF tx[2], ty[2];
    AxisTaps<Mode::kLinear>(d, x, &ix, tx);
    AxisTaps<Mode::kLinear>(d, y, &iy, ty);
    const VI wi = hn::LoadU(di, a.level_wi + j), hi = hn::LoadU(di, a.level_hi + j);
    const VI start = hn::LoadU(di, a.level_start + j);
    const auto finite = hn::RebindMask(di, ok);
    // Rows of S from the taps clamped into their level (start + y * W + x < S < 2^31: no
    // overflow in int32); a tap outside is dropped all the same.
    const VI last_x = hn::Sub(wi, one), last_y = hn::Sub(hi, one);
    for (int ky = 0; ky < 2; ++ky) {
      const VI yi = hn::Add(iy, ky ? one : zero);
      const auto row_in = hn::And(finite, hn::And(hn::Gt(yi, minus_one), hn::Lt(yi, hi)));
      const VI row = hn::Add(start, hn::Mul(hn::Min(hn::Max(yi, zero), last_y), wi));
      for (int kx = 0; kx < 2; ++kx) {
        const VI xi = hn::Add(ix, kx ? one : zero);
        const auto inside = hn::And(row_in, hn::And(hn::Gt(xi, minus_one), hn::Lt(xi, wi)));
        const VI pixel = hn::Add(row, hn::Min(hn::Max(xi, zero), last_x));
        const int t = 2 * ky + kx;
        hn::StoreU(hn::IfThenElse(inside, pixel, minus_one), di, taps->pixel[t] + p);
        hn::StoreU(hn::Mul(tx[kx], ty[ky]), d, taps->weight[t] + p);
      }
    }
  }
}

// Plans points [j0, j0 + count) by the discrete rule (rules/discrete_tap.h), one point at a
// time: the one pixel as a tap of weight 1 (the reference adds its value to +0 alike), the
// other three dropped; no tap where the location is not finite.
HWY_INLINE void PlanDiscrete(const AttentionArgs& a, const float* HWY_RESTRICT loc, int64_t j0,
                             int count, ChunkTaps* HWY_RESTRICT taps) {
  for (int k = 0; k < count; ++k) {
    const int64_t j = j0 + k, wi = a.level_wi[j], hi = a.level_hi[j];
    int64_t col = 0, line = 0;
    const bool read = DiscreteTap(loc[2 * k], loc[2 * k + 1], hi, wi, &col, &line);
    taps->pixel[0][k] = read ? static_cast<int32_t>(a.level_start[j] + line * wi + col) : -1;
    taps->weight[0][k] = 1.0f;
    for (int t = 1; t < 4; ++t) {
      taps->pixel[t][k] = -1;
      taps->weight[t][k] = 0.0f;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_DRIVERS_ATTENTION_PLANS_INL_H_
