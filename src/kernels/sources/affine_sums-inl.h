// AffineGrid's coordinates for a row of pixels, vectorised but computed exactly as the
// reference computes them, for the fast AffineGrid and the fused affine warp.
//
// The reference evaluates v = ((0 + t0 * x_j) + t1 * y_i) + t2 in double and rounds v once to
// the grid's dtype. Separably, a_j = 0 + t0 * x_j is computed once per column and p_i =
// t1 * y_i once per row; each value then costs two double additions, in the reference's
// order, and one rounding: the result is the reference's, bit for bit. (A float32
// multiply-add would cost a little less but differ by an ulp now and then, and nearest
// sampling turns such an ulp at a tie into a different pixel.)
//
// Highway 1.0 has no float64 vectors on WASM, and EMU128's double-to-float DemoteTo
// saturates at +-FLT_MAX where a cast overflows to infinity; so WASM uses wasm_simd128.h
// directly, targets with float64 vectors use Highway, and the rest (EMU128 and SCALAR, which
// are scalar code anyway) compute lane by lane with the reference's very expressions.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_SOURCES_AFFINE_SUMS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_SOURCES_AFFINE_SUMS_INL_H_
#undef GRIDSAMPLE_SOURCES_AFFINE_SUMS_INL_H_
#else
#define GRIDSAMPLE_SOURCES_AFFINE_SUMS_INL_H_
#endif

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "planner/lanes-inl.h"
#include "planner/limits.h"
#include "rules/coordinate_rule.h"
#include "sources/affine_terms.h"
#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef GRIDSAMPLE_AFFINE_SIMD
#if HWY_TARGET == HWY_WASM
#define GRIDSAMPLE_AFFINE_SIMD 2  // wasm_simd128.h
#elif HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
#define GRIDSAMPLE_AFFINE_SIMD 1  // Highway float64 vectors (SCALAR's one lane has no halves)
#else
#define GRIDSAMPLE_AFFINE_SIMD 0  // lane by lane
#endif

using AffineDF = hn::ScalableTag<float>;
using AffineVF = hn::Vec<AffineDF>;
constexpr int kAffineMaxLanes = HWY_MAX_BYTES / sizeof(float);

// The float value GridSample takes from a float64 grid value v (see CoordinateAsFloat).
HWY_INLINE float Float64GridValue(double v, Padding padding) {
  return CoordinateAsFloat(v, padding);
}

#if GRIDSAMPLE_AFFINE_SIMD == 2

// Sum of a[0..2) and `terms`, in order.
template <int kTerms>
HWY_INLINE v128_t AffineSum2(const double* a, const v128_t* terms) {
  v128_t v = wasm_v128_load(a);
  for (int k = 0; k < kTerms; ++k) v = wasm_f64x2_add(v, terms[k]);
  return v;
}

// As Float64GridValue, two lanes: the reduction is lanes-inl.h's ReducedByPeriods in wasm
// intrinsics (Highway has no float64 vectors here); pmin/pmax are single instructions and a NaN
// is replaced anyway.
HWY_INLINE v128_t Float64GridValue2(v128_t v, Padding padding) {
  if (ReducesFarCoordinates(padding)) {
    const v128_t q = wasm_f64x2_trunc(wasm_f64x2_mul(v, wasm_f64x2_splat(1 / kReflectionPeriod)));
    const v128_t r = wasm_f64x2_sub(v, wasm_f64x2_mul(q, wasm_f64x2_splat(kReflectionPeriod)));
    v = wasm_v128_bitselect(
        r, v, wasm_f64x2_gt(wasm_f64x2_abs(v), wasm_f64x2_splat(kReflectReduceAbove)));
  }
  const v128_t finite = wasm_f64x2_lt(wasm_f64x2_abs(v), wasm_f64x2_splat(HUGE_VAL));
  const v128_t c =
      wasm_f64x2_pmin(wasm_f64x2_pmax(v, wasm_f64x2_splat(-FLT_MAX)), wasm_f64x2_splat(FLT_MAX));
  return wasm_v128_bitselect(c, wasm_f64x2_splat(std::numeric_limits<double>::quiet_NaN()), finite);
}

// [lo.0 lo.1 hi.0 hi.1] rounded to float (IEEE: nearest even, overflow to infinity).
HWY_INLINE AffineVF Demote4(v128_t lo, v128_t hi) {
  return AffineVF{wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo),
                                     wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5)};
}

#elif GRIDSAMPLE_AFFINE_SIMD == 1

using AffineDD = hn::Repartition<double, AffineDF>;
using AffineVD = hn::Vec<AffineDD>;

template <int kTerms>
HWY_INLINE AffineVD AffineSumD(const double* a, const AffineVD* terms) {
  AffineVD v = hn::Load(AffineDD(), a);
  for (int k = 0; k < kTerms; ++k) v = hn::Add(v, terms[k]);
  return v;
}

HWY_INLINE AffineVD Float64GridValueD(AffineVD v, Padding padding) {
  const AffineDD dd;
  if (ReducesFarCoordinates(padding)) v = ReducedByPeriods(dd, v, FarFromPeriod(dd, v));
  const auto finite = hn::Lt(hn::Abs(v), hn::Set(dd, HUGE_VAL));
  const AffineVD c = hn::Min(hn::Max(v, hn::Set(dd, -FLT_MAX)), hn::Set(dd, FLT_MAX));
  return hn::IfThenElse(finite, c, hn::Set(dd, std::numeric_limits<double>::quiet_NaN()));
}

// [lo hi] rounded to float (x86 cvtpd2ps, NEON fcvtn: nearest even, overflow to infinity).
HWY_INLINE AffineVF DemoteHalves(AffineVD lo, AffineVD hi) {
  const hn::Half<AffineDF> dh;
  return hn::Combine(AffineDF(), hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
}

#endif  // GRIDSAMPLE_AFFINE_SIMD

// Lanes(AffineDF) floats: (a[j] + terms[0]) + terms[1] ... in double, rounded once to float
// (AffineGrid's float32 values). `a` is vector-aligned.
template <int kTerms>
HWY_INLINE AffineVF AffineToFloat(const double* a, const double* terms) {
#if GRIDSAMPLE_AFFINE_SIMD == 2
  v128_t t[kTerms];
  for (int k = 0; k < kTerms; ++k) t[k] = wasm_f64x2_splat(terms[k]);
  return Demote4(AffineSum2<kTerms>(a, t), AffineSum2<kTerms>(a + 2, t));
#elif GRIDSAMPLE_AFFINE_SIMD == 1
  const AffineDD dd;
  AffineVD t[kTerms];
  for (int k = 0; k < kTerms; ++k) t[k] = hn::Set(dd, terms[k]);
  return DemoteHalves(AffineSumD<kTerms>(a, t), AffineSumD<kTerms>(a + hn::Lanes(dd), t));
#else
  const AffineDF d;
  HWY_ALIGN float out[kAffineMaxLanes];
  for (size_t j = 0; j < hn::Lanes(d); ++j) {
    double v = a[j];
    for (int k = 0; k < kTerms; ++k) v += terms[k];
    out[j] = static_cast<float>(v);
  }
  return hn::Load(d, out);
#endif
}

// As AffineToFloat, with terms that differ per lane: lane i adds terms[k][i] (kTerms rows of
// kAffineMaxLanes doubles). For a grid row stored interleaved (x, y[, z]) per point.
template <int kTerms>
HWY_INLINE AffineVF AffineLanesToFloat(const double* a, const double (*terms)[kAffineMaxLanes]) {
#if GRIDSAMPLE_AFFINE_SIMD == 2
  v128_t lo[kTerms], hi[kTerms];
  for (int k = 0; k < kTerms; ++k) {
    lo[k] = wasm_v128_load(terms[k]);
    hi[k] = wasm_v128_load(terms[k] + 2);
  }
  return Demote4(AffineSum2<kTerms>(a, lo), AffineSum2<kTerms>(a + 2, hi));
#elif GRIDSAMPLE_AFFINE_SIMD == 1
  const AffineDD dd;
  const size_t half = hn::Lanes(dd);
  AffineVD lo[kTerms], hi[kTerms];
  for (int k = 0; k < kTerms; ++k) {
    lo[k] = hn::Load(dd, terms[k]);
    hi[k] = hn::Load(dd, terms[k] + half);
  }
  return DemoteHalves(AffineSumD<kTerms>(a, lo), AffineSumD<kTerms>(a + half, hi));
#else
  const AffineDF d;
  HWY_ALIGN float out[kAffineMaxLanes];
  for (size_t j = 0; j < hn::Lanes(d); ++j) {
    double v = a[j];
    for (int k = 0; k < kTerms; ++k) v += terms[k][j];
    out[j] = static_cast<float>(v);
  }
  return hn::Load(d, out);
#endif
}

// As AffineToFloat<2>, but the value read as GridSample reads a float64 grid (for float64
// theta): see Float64GridValue.
HWY_INLINE AffineVF AffineToFloatFromDouble(const double* a, const double* terms, Padding padding) {
#if GRIDSAMPLE_AFFINE_SIMD == 2
  const v128_t t[2] = {wasm_f64x2_splat(terms[0]), wasm_f64x2_splat(terms[1])};
  return Demote4(Float64GridValue2(AffineSum2<2>(a, t), padding),
                 Float64GridValue2(AffineSum2<2>(a + 2, t), padding));
#elif GRIDSAMPLE_AFFINE_SIMD == 1
  const AffineDD dd;
  const AffineVD t[2] = {hn::Set(dd, terms[0]), hn::Set(dd, terms[1])};
  return DemoteHalves(Float64GridValueD(AffineSumD<2>(a, t), padding),
                      Float64GridValueD(AffineSumD<2>(a + hn::Lanes(dd), t), padding));
#else
  const AffineDF d;
  HWY_ALIGN float out[kAffineMaxLanes];
  for (size_t j = 0; j < hn::Lanes(d); ++j) {
    out[j] = Float64GridValue((a[j] + terms[0]) + terms[1], padding);
  }
  return hn::Load(d, out);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_SOURCES_AFFINE_SUMS_INL_H_
