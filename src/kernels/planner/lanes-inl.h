// The planner's vocabulary: the float and int32 vectors of a Highway target, its lane count,
// each mode's window (kTaps), the clamps it and the blends use, and reflection's reduction.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_PLANNER_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_PLANNER_LANES_INL_H_
#undef GRIDSAMPLE_PLANNER_LANES_INL_H_
#else
#define GRIDSAMPLE_PLANNER_LANES_INL_H_
#endif

#include <cstdint>

#include "gridsample/types.h"
#include "hwy/highway.h"
#include "rules/constants.h"
#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;

constexpr int kMaxLanes = HWY_MAX_BYTES / sizeof(float);

template <Mode M>
constexpr int kTaps = TapsPerAxis(M);

constexpr int Pow(int base, int exp) { return exp == 0 ? 1 : base * Pow(base, exp - 1); }
constexpr int FloorPow2(int v) { return v < 2 ? 1 : 2 * FloorPow2(v / 2); }

// Min and max for clamping. On WASM, f32x4.min/max also order NaN and -0, which costs V8
// several instructions each; pmin/pmax (b < a ? b : a) are one. A NaN in `a` gives NaN or
// `b`, by target: callers pass no NaN or treat both alike.
template <class V>
HWY_INLINE V MinNoNaN(V a, V b) {
#if HWY_TARGET == HWY_WASM
  return V{wasm_f32x4_pmin(a.raw, b.raw)};
#else
  return hn::Min(a, b);
#endif
}
template <class V>
HWY_INLINE V MaxNoNaN(V a, V b) {
#if HWY_TARGET == HWY_WASM
  return V{wasm_f32x4_pmax(a.raw, b.raw)};
#else
  return hn::Max(a, b);
#endif
}

// Far coordinates v (|v| > kReflectReduceAbove) reduced by whole periods, v - 4 trunc(v / 4),
// in float or double lanes: std::fmod(v, 4) (the reference's) exactly, every step being exact
// for |v| > 3; the others as they are. `far` is that mask (callers may test it first).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ReducedByPeriods(D d, V v, hn::Mask<D> far) {
  using T = hn::TFromD<D>;
  const V q = hn::Trunc(hn::Mul(v, hn::Set(d, static_cast<T>(1 / kReflectionPeriod))));
  return hn::IfThenElse(far, hn::Sub(v, hn::Mul(q, hn::Set(d, static_cast<T>(kReflectionPeriod)))),
                        v);
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE hn::Mask<D> FarFromPeriod(D d, V v) {
  return hn::Gt(hn::Abs(v), hn::Set(d, static_cast<hn::TFromD<D>>(kReflectReduceAbove)));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_PLANNER_LANES_INL_H_
