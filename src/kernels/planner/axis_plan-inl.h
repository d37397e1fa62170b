// The planner along one axis: from a vector of coordinates (normalised, or pixel positions) to
// each pixel's window of taps inside the axis and the weight of each window slot, with padding
// folded into the weights. The single fast-path home of denormalisation, far-coordinate
// reduction and clamping, reflection and padding (ToPixels, PlanPixels).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_PLANNER_AXIS_PLAN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_PLANNER_AXIS_PLAN_INL_H_
#undef GRIDSAMPLE_PLANNER_AXIS_PLAN_INL_H_
#else
#define GRIDSAMPLE_PLANNER_AXIS_PLAN_INL_H_
#endif

#include <cstdint>

#include "gridsample/types.h"
#include "hwy/highway.h"
#include "planner/lanes-inl.h"
#include "rules/axis_line.h"
#include "rules/constants.h"
#include "rules/keys_cubic.h"
#include "rules/pixel_rule.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Per axis: window start and the weight of each window slot, for one vector of pixels.
template <Mode M>
struct AxisPlan {
  HWY_INLINE AxisPlan() {}  // explicit: GCC does not compile the implicit one for NEON
  VI start;
  VF w[kTaps<M>];
};

// Keys' kernel (rules/keys_cubic.h) at |t| <= 1 and at 1 < |t| < 2; every multiple of A below
// is exact in float.
constexpr float kA = static_cast<float>(kCubicA);
HWY_INLINE VF CubicNear(DF d, VF t) {
  return GRIDSAMPLE_CUBIC_NEAR(t, hn::Set(d, kA + 2), hn::Set(d, kA + 3), hn::Set(d, 1.0f));
}
HWY_INLINE VF CubicFar(DF d, VF t) {
  return GRIDSAMPLE_CUBIC_FAR(t, hn::Set(d, kA), hn::Set(d, 5 * kA), hn::Set(d, 8 * kA),
                              hn::Set(d, 4 * kA));
}

// Pixel coordinates of the finite normalised coordinates g on an axis of `size`, with the
// reference's operations: reduce modulo 4 (ReducesFarCoordinates), the axis line
// (rules/axis_line.h), clamp far away points. align_corners is a runtime flag: it only picks
// constants, and keeping it out of the template parameters halves the code size (which matters for
// the wasm download).
HWY_INLINE VF Denormalise(DF d, VF g, int32_t size, bool align, Padding padding) {
  const VF one = hn::Set(d, 1.0f);
  const VF half = hn::Set(d, 0.5f);
  if (ReducesFarCoordinates(padding)) {  // a branch per vector: grids rarely reach beyond 3
    const auto far = FarFromPeriod(d, g);
    if (!hn::AllFalse(d, far)) g = ReducedByPeriods(d, g, far);
  }
  const AxisLine line = NormalisedLine(size, align);
  const VF x = GRIDSAMPLE_PIXEL_ON_LINE(g, hn::Set(d, static_cast<float>(line.scale)),
                                        hn::Set(d, static_cast<float>(line.shift)), one, half);
  return MinNoNaN(MaxNoNaN(x, hn::Set(d, -kFarPixels<float>)),
                  hn::Set(d, static_cast<float>(size) + kFarPixels<float>));
}

// pixel_rule.h's ReducePixel lane by lane (a far position under reflection: rare).
inline HWY_NOINLINE VF ReduceFarPixels(DF d, VF u, int32_t size, bool align) {
  HWY_ALIGN float lanes[kMaxLanes];
  hn::Store(u, d, lanes);
  for (size_t k = 0; k < hn::Lanes(d); ++k) lanes[k] = ReducePixel(lanes[k], size, align);
  return hn::Load(d, lanes);
}
// Pixel positions u (finite) as the planner takes them, by pixel_rule.h: reduced by whole
// periods where reflection (ReducesFarCoordinates) meets a far position, then far away points
// clamped as Denormalise clamps them. A branch per vector: maps rarely reach a period beyond the
// image.
HWY_INLINE VF PixelPositions(DF d, VF u, int32_t size, bool align, Padding padding) {
  if (ReducesFarCoordinates(padding)) {
    const double period = ReflectionPeriod(size, align);
    const VF p = hn::Set(d, static_cast<float>(period));
    const auto far = hn::Or(hn::Lt(u, hn::Neg(p)), hn::Gt(u, hn::Add(p, p)));
    if (period > 0.0 && !hn::AllFalse(d, far)) u = ReduceFarPixels(d, u, size, align);
  }
  return MinNoNaN(MaxNoNaN(u, hn::Set(d, -kFarPixels<float>)),
                  hn::Set(d, static_cast<float>(size) + kFarPixels<float>));
}

// How AxisTaps turns a whole-number position into a tap index, and where it takes 1.0: by
// conversion, valid wherever the planner's positions reach (kFarPixels past the image). A caller
// whose positions are known to lie in [0, 2^22) may pass a cheaper policy of the same shape
// (blends/fixed_point_u8-inl.h: no guarded conversion, constants held in registers).
struct ConvertedTaps {
  HWY_INLINE VF One(DF d) const { return hn::Set(d, 1.0f); }
  HWY_INLINE VI Index(DI di, VF whole) const { return hn::ConvertTo(di, whole); }
};

// First tap (unpadded) and tap weights at pixel coordinates x, as the reference: floor (round
// for nearest), then the linear or Keys weights of the fraction.
template <Mode M, class Ints = ConvertedTaps>
HWY_INLINE void AxisTaps(DF d, VF x, VI* first, VF* w, const Ints& ints = Ints()) {
  const DI di;
  const VF one = ints.One(d);
  if (M == Mode::kNearest) {
    *first = ints.Index(di, hn::Round(x));  // half to even
    w[0] = one;
    return;
  }
  const VF f = hn::Floor(x);
  const VI i0 = ints.Index(di, f);
  if (M == Mode::kLinear) {
    *first = i0;
    w[0] = hn::Sub(hn::Add(f, one), x);
    w[1] = hn::Sub(x, f);
  } else {
    *first = hn::Sub(i0, hn::Set(di, 1));
    const VF t = hn::Sub(x, f);
    w[0] = CubicFar(d, hn::Add(t, one));
    w[1] = CubicNear(d, t);
    w[2] = CubicNear(d, hn::Sub(one, t));
    w[3] = CubicFar(d, hn::Sub(hn::Set(d, 2.0f), t));
  }
}

// Reflection of the kT consecutive taps i, i + 1, .. of a coordinate reduced to |g| < 4: then
// every tap lies in [-1.5 S - 2, 2.5 S + 2] (align 0; similar with S - 1 for align 1). With
// the period p = 2S (align 0) or 2(S - 1) (align 1), r = i + 2p is in [0, 8p), and three
// conditional subtractions bring it into [0, p): for unsigned r < 2q, min_u(r, r - q) is
// r mod q (r - q wraps to a huge unsigned value when r < q). Then the mirror: min(r, p - 1 - r)
// (align 0) or min(r, p - r) (align 1). Each next tap steps from the previous position in the
// period, r + 1 folded once (it wraps to 0 at p). Integer adds and minimums only.
template <int kT>
HWY_INLINE void ReflectTaps(VI i, int32_t size, bool align, VI* tap) {
  const DI di;
  const hn::RebindToUnsigned<DI> du;
  if (size == 1) {
    for (int k = 0; k < kT; ++k) tap[k] = hn::Zero(di);
    return;
  }
  const int32_t period = align ? 2 * (size - 1) : 2 * size;
  const auto fold = [du](decltype(hn::Zero(du)) r, int32_t q) {
    return hn::Min(r, hn::Sub(r, hn::Set(du, static_cast<uint32_t>(q))));
  };
  auto r = hn::BitCast(du, hn::Add(i, hn::Set(di, 2 * period)));
  r = fold(fold(fold(r, 4 * period), 2 * period), period);
  const VI mirror = hn::Set(di, align ? period : period - 1);
  for (int k = 0; k < kT; ++k) {
    if (k > 0) r = fold(hn::Add(r, hn::Set(du, 1u)), period);
    const VI folded = hn::BitCast(di, r);
    tap[k] = hn::Min(folded, hn::Sub(mirror, folded));
  }
}

// Window and slot weights along one axis at the pixel coordinates x (clamped by Denormalise;
// for reflection reduced there too). The window [start, start + kT) lies inside the axis;
// taps that padding maps onto the same pixel have their weights added, taps that zeros
// padding drops have none. Needs size >= kT.
template <Mode M, Padding P>
HWY_INLINE void PlanPixels(DF d, VF x, int32_t size, bool align, AxisPlan<M>* out) {
  const DI di;
  constexpr int kT = kTaps<M>;
  VI tap[kT];
  VF w[kT];
  AxisTaps<M>(d, x, &tap[0], w);
  for (int k = 1; k < kT; ++k) tap[k] = hn::Add(tap[0], hn::Set(di, k));

  const VI zero_i = hn::Zero(di);
  const VI last = hn::Set(di, size - 1);
  if (M == Mode::kLinear && P != Padding::kReflection) {
    // Two taps i0, i0 + 1 and the window [start, start + 1], start = clamp(i0, 0, S - 2):
    // either the window is the taps, or the taps hang over one edge by one pixel or more.
    const VI start = hn::Min(hn::Max(tap[0], zero_i), hn::Set(di, size - 2));
    const auto inside = hn::RebindMask(d, hn::Eq(tap[0], start));
    const auto below = hn::RebindMask(d, hn::Lt(tap[0], start));  // window right of taps
    const auto above = hn::RebindMask(d, hn::Gt(tap[0], start));  // window left of taps
    out->start = start;
    if (P == Padding::kZeros) {  // only the tap that lands inside (i0 = -1 or S - 1) counts
      const auto left_edge = hn::RebindMask(d, hn::Eq(tap[0], hn::Set(di, -1)));
      const auto right_edge = hn::RebindMask(d, hn::Eq(tap[0], last));
      out->w[0] = hn::IfThenElse(inside, w[0], hn::IfThenElseZero(left_edge, w[1]));
      out->w[1] = hn::IfThenElse(inside, w[1], hn::IfThenElseZero(right_edge, w[0]));
    } else {  // border: both taps clamp onto the window's edge pixel
      const VF both = hn::Add(w[0], w[1]);
      out->w[0] = hn::IfThenElse(inside, w[0], hn::IfThenElseZero(below, both));
      out->w[1] = hn::IfThenElse(inside, w[1], hn::IfThenElseZero(above, both));
    }
    return;
  }
  // Interior vectors (every tap of every lane inside the image, the common case) need no
  // padding: the window is the taps. A branch per vector, well predicted along a row.
  if (hn::AllTrue(di, hn::And(hn::Gt(tap[0], hn::Set(di, -1)),
                              hn::Lt(tap[0], hn::Set(di, size - kT + 1))))) {
    out->start = tap[0];
    for (int k = 0; k < kT; ++k) out->w[k] = w[k];
    return;
  }
  if (P == Padding::kReflection) ReflectTaps<kT>(tap[0], size, align, tap);
  for (int k = 0; k < kT; ++k) {
    if (P == Padding::kZeros) {
      const auto inside =
          hn::And(hn::Gt(tap[k], hn::Set(di, -1)), hn::Lt(tap[k], hn::Set(di, size)));
      w[k] = hn::IfThenElseZero(hn::RebindMask(d, inside), w[k]);
    } else if (P == Padding::kBorder) {
      tap[k] = hn::Min(hn::Max(tap[k], zero_i), last);
    }
  }
  if (M == Mode::kNearest) {
    out->start = hn::Min(hn::Max(tap[0], zero_i), last);
    out->w[0] = w[0];
    return;
  }
  // Window start: the smallest tap, kept inside the image. Padded taps of kT consecutive
  // indices span at most kT consecutive indices (size >= kT), so every weight finds a slot.
  VI lo = tap[0];
  for (int k = 1; k < kT; ++k) lo = hn::Min(lo, tap[k]);
  out->start = hn::Min(hn::Max(lo, zero_i), hn::Set(di, size - kT));
  for (int j = 0; j < kT; ++j) {
    const VI slot = hn::Add(out->start, hn::Set(di, j));
    VF sum = hn::Zero(d);
    for (int k = 0; k < kT; ++k) {
      sum = hn::Add(sum, hn::IfThenElseZero(hn::RebindMask(d, hn::Eq(tap[k], slot)), w[k]));
    }
    out->w[j] = sum;
  }
}

// The pixel positions PlanVector takes, from coordinates g in space S (denormalised, or as they
// are) by the planner's rules for `padding`; a non-finite g stays non-finite (adding
// g - g, which is 0 for finite g), as it samples 0. Sources' coordinates pass here before they are
// planned, so that the planner itself, the bulk of the code, exists once for every space.
template <CoordinateSpace S>
HWY_INLINE VF ToPixels(DF d, VF g, int32_t size, bool align, Padding padding) {
  VF x;
  if constexpr (S == CoordinateSpace::kPixels) {
    x = PixelPositions(d, g, size, align, padding);
  } else {
    x = Denormalise(d, g, size, align, padding);
  }
  return hn::Add(x, hn::Sub(g, g));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_PLANNER_AXIS_PLAN_INL_H_
