// Per-axis planning shared by the Highway kernels: from normalised coordinates to a window
// of taps inside the image with padding folded into the tap weights, plus pair loads.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_FAST_PLAN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_FAST_PLAN_INL_H_
#undef GRIDSAMPLE_FAST_PLAN_INL_H_
#else
#define GRIDSAMPLE_FAST_PLAN_INL_H_
#endif

#include <cstdint>

#include "gridsample/types.h"
#include "hwy/highway.h"
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
constexpr int kTaps = M == Mode::kNearest ? 1 : (M == Mode::kLinear ? 2 : 4);

constexpr int Pow(int base, int exp) { return exp == 0 ? 1 : base * Pow(base, exp - 1); }

// Per axis: window start and the weight of each window slot, for one vector of pixels.
template <Mode M>
struct AxisPlan {
  HWY_INLINE AxisPlan() {}  // explicit for the same reason as VectorPlan's
  VI start;
  VF w[kTaps<M>];
};

// Keys cubic kernel, A = -0.75, written as in the reference.
HWY_INLINE VF CubicNear(DF d, VF t) {  // |t| <= 1: ((A + 2) t - (A + 3)) t t + 1
  const VF a2 = hn::Set(d, 1.25f), a3 = hn::Set(d, 2.25f);
  return hn::Add(hn::Mul(hn::Mul(hn::Sub(hn::Mul(a2, t), a3), t), t), hn::Set(d, 1.0f));
}
HWY_INLINE VF CubicFar(DF d, VF t) {  // 1 < |t| < 2: ((A t - 5A) t + 8A) t - 4A
  const VF a = hn::Set(d, -0.75f);
  const VF a5 = hn::Set(d, -3.75f), a8 = hn::Set(d, -6.0f), a4 = hn::Set(d, -3.0f);
  return hn::Sub(hn::Mul(hn::Add(hn::Mul(hn::Sub(hn::Mul(a, t), a5), t), a8), t), a4);
}

// Padded index of integer taps `i` on an axis of size `size` (reflection; |i| < 2^24).
HWY_INLINE VI Reflect(DF d, VI i, int32_t size, bool align) {
  const DI di;
  if (size == 1) return hn::Zero(di);
  const float period = align ? 2.0f * static_cast<float>(size - 1) : 2.0f * size;
  const VF p = hn::Set(d, period);
  const VF t = hn::ConvertTo(d, i);  // exact: |i| < 2^24
  VF r = hn::Sub(t, hn::Mul(hn::Floor(hn::Div(t, p)), p));  // integers: exact
  // The quotient may round across an integer: bring r into [0, period) exactly.
  r = hn::IfThenElse(hn::Lt(r, hn::Zero(d)), hn::Add(r, p), r);
  r = hn::IfThenElse(hn::Ge(r, p), hn::Sub(r, p), r);
  const VF mirrored = align ? hn::Sub(p, r) : hn::Sub(hn::Sub(p, hn::Set(d, 1.0f)), r);
  const VF s = hn::Set(d, static_cast<float>(size));
  return hn::ConvertTo(di, hn::IfThenElse(hn::Lt(r, s), r, mirrored));
}

// First tap (unpadded) and tap weights at pixel coordinates x, as the reference: floor (round
// for nearest), then the linear or Keys weights of the fraction.
template <Mode M>
HWY_INLINE void AxisTaps(DF d, VF x, VI* first, VF* w) {
  const DI di;
  const VF one = hn::Set(d, 1.0f);
  if (M == Mode::kNearest) {
    *first = hn::ConvertTo(di, hn::Round(x));  // half to even
    w[0] = one;
    return;
  }
  const VF f = hn::Floor(x);
  const VI i0 = hn::ConvertTo(di, f);
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

// Reflect() for taps of a coordinate already reduced to |g| < 4: then every tap lies in
// [-1.5 S - 2, 2.5 S + 2] (align 0; similar with S - 1 for align 1). With the period
// p = 2S (align 0) or 2(S - 1) (align 1), r = i + 2p is in [0, 8p), and three conditional
// subtractions bring it into [0, p): for unsigned r < 2q, min_u(r, r - q) is r mod q (r - q
// wraps to a huge unsigned value when r < q). Then the mirror: min(r, p - 1 - r) (align 0)
// or min(r, p - r) (align 1). Integer adds and minimums only, no compares or selects.
// For the kT consecutive taps i, i + 1, ..: the first is folded so, each next one steps from
// the previous position in the period, r + 1 folded once (it wraps to 0 at p).
template <int kT>
HWY_INLINE void ReflectNear(VI i, int32_t size, bool align, VI* tap) {
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

// Window and slot weights along one axis for the normalised coordinates g (finite).
// align_corners is a runtime flag: it only picks constants, and keeping it out of the
// template parameters halves the code size (which matters for the wasm download).
template <Mode M, Padding P>
HWY_INLINE void PlanAxis(DF d, VF g, int32_t size, bool align, AxisPlan<M>* out) {
  const DI di;
  constexpr int kT = kTaps<M>;
  const VF one = hn::Set(d, 1.0f);
  const VF half = hn::Set(d, 0.5f);
  if (P == Padding::kReflection) {
    // Reflection repeats every 4 in normalised units; reduce like the reference's fmod (a
    // branch per vector: grids rarely reach beyond 3).
    const auto far = hn::Gt(hn::Abs(g), hn::Set(d, 3.0f));
    if (!hn::AllFalse(d, far)) {
      const VF q = hn::Trunc(hn::Mul(g, hn::Set(d, 0.25f)));
      g = hn::IfThenElse(far, hn::Sub(g, hn::Mul(hn::Set(d, 4.0f), q)), g);
    }
  }
  VF x;
  if (align) {
    x = hn::Mul(hn::Mul(hn::Add(g, one), half), hn::Set(d, static_cast<float>(size - 1)));
  } else {
    x = hn::Mul(hn::Sub(hn::Mul(hn::Add(g, one), hn::Set(d, static_cast<float>(size))), one), half);
  }
  // As the reference: beyond 2^23 pixels out every float is an integer and all taps pad
  // alike, so clamping there changes nothing and keeps the conversion to int32 defined.
  constexpr float kFar = 8388608.0f;
  x = hn::Min(hn::Max(x, hn::Set(d, -kFar)), hn::Set(d, static_cast<float>(size) + kFar));

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
  if (P == Padding::kReflection) {
    ReflectNear<kT>(tap[0], size, align, tap);  // g was reduced above
  }
  for (int k = 0; k < kT; ++k) {
    if (P == Padding::kZeros) {
      const auto inside = hn::And(hn::Gt(tap[k], hn::Set(di, -1)), hn::Lt(tap[k], hn::Set(di, size)));
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

#undef GRIDSAMPLE_FAST_X86_BLOCKS  // this file is read once per target
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
// x86, SSSE3 to AVX-512: the taps of a vector of pixels come from scalar, 64-bit and 128-bit
// loads, one 128-bit block of 4 pixels at a time, then rearranged within blocks only. The
// hardware gathers (vgatherdps) lose to these loads on this project's AMD EPYC machines:
// nearest2d's fastest AVX2 calls took 1.2-1.9 ms with them, 1.05-1.45 ms without (an AVX2-only
// EPYC); on an AVX-512 one (Zen 5) the AVX3 target's 16-lane gathers made cubic2d 3.6 ms,
// feat2d 0.57 ms and vol3d 5.5 ms, where AVX2 without them took 1.7, 0.27 and 2.3 ms
// (gridsample_bench --targets).
#define GRIDSAMPLE_FAST_X86_BLOCKS 1

// The vector of N floats whose 128-bit block k holds block(first + k) (an __m128).
template <size_t N, class Block>
HWY_INLINE hn::Vec<hn::Simd<float, N, 0>> FromBlocks(const Block& block, int first = 0) {
  if constexpr (N == 4) {
    return hn::Vec<hn::Simd<float, 4, 0>>{block(first)};
  } else {
    return hn::Combine(hn::Simd<float, N, 0>(), FromBlocks<N / 2>(block, first + N / 8),
                       FromBlocks<N / 2>(block, first));
  }
}

// shufps on every 128-bit block: lanes i0, i1 of a, then i2, i3 of b (kImm = _MM_SHUFFLE(i3, i2, i1, i0)).
template <int kImm>
HWY_INLINE __m128 ShuffleBlocks(__m128 a, __m128 b) { return _mm_shuffle_ps(a, b, kImm); }
#if HWY_TARGET <= HWY_AVX2
template <int kImm>
HWY_INLINE __m256 ShuffleBlocks(__m256 a, __m256 b) { return _mm256_shuffle_ps(a, b, kImm); }
#endif

// x[i], x[i + 1] in the low half of a block, x[j], x[j + 1] in the high half.
HWY_INLINE __m128 LoadTwoPairs(const float* x, int32_t i, int32_t j) {
  const __m128 lo = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(x + i)));
  return _mm_loadh_pi(lo, reinterpret_cast<const __m64*>(x + j));
}
#endif

// x[offset[i]] for the Lanes(d) offsets at `offset` (a plan's, in memory).
template <class D>
HWY_INLINE hn::Vec<D> Gather(D d, const float* x, const int32_t* offset) {
#if HWY_TARGET == HWY_WASM
  // Lane loads: Highway's GatherIndex stores four scalars and reloads them as a vector,
  // which stalls on store forwarding.
  (void)d;
  v128_t v = wasm_v128_load32_zero(x + offset[0]);
  v = wasm_v128_load32_lane(x + offset[1], v, 1);
  v = wasm_v128_load32_lane(x + offset[2], v, 2);
  return hn::Vec<D>{wasm_v128_load32_lane(x + offset[3], v, 3)};
#elif GRIDSAMPLE_FAST_X86_BLOCKS
  (void)d;
  return FromBlocks<hn::MaxLanes(D())>([x, offset](int k) {
    const int32_t* o = offset + 4 * k;
    return _mm_setr_ps(x[o[0]], x[o[1]], x[o[2]], x[o[3]]);
  });
#else
  return hn::GatherIndex(d, x, hn::Load(hn::RebindToSigned<D>(), offset));
#endif
}

// first[i] = x[o[i]], second[i] = x[o[i] + 1] for the Lanes(d) offsets at `o`.
template <class D>
HWY_INLINE void GatherPair(D d, const float* x, const int32_t* o, hn::Vec<D>* first,
                           hn::Vec<D>* second) {
#if HWY_TARGET == HWY_WASM
  // Two 64-bit lane loads per pair of pixels, then one shuffle each way:
  //   v01 = [x[o0] x[o0+1] x[o1] x[o1+1]]   v23 = [x[o2] x[o2+1] x[o3] x[o3+1]]
  //   first = [v01.0 v01.2 v23.0 v23.2]      second = [v01.1 v01.3 v23.1 v23.3]
  (void)d;
  v128_t v01 = wasm_v128_load64_zero(x + o[0]);
  v01 = wasm_v128_load64_lane(x + o[1], v01, 1);
  v128_t v23 = wasm_v128_load64_zero(x + o[2]);
  v23 = wasm_v128_load64_lane(x + o[3], v23, 1);
  first->raw = wasm_i32x4_shuffle(v01, v23, 0, 2, 4, 6);
  second->raw = wasm_i32x4_shuffle(v01, v23, 1, 3, 5, 7);
#elif GRIDSAMPLE_FAST_X86_BLOCKS
  // Two pixels' pairs per block half, then one shuffle each way within blocks
  // (a = x[o[i]], b = x[o[i] + 1] of pixel i; blocks of 4 pixels, | between blocks):
  //   lo = [a0 b0 a1 b1 | a4 b4 a5 b5 | ..]   hi = [a2 b2 a3 b3 | a6 b6 a7 b7 | ..]
  //   first = [a0 a1 a2 a3 | a4 a5 a6 a7 | ..] second = [b0 b1 b2 b3 | b4 b5 b6 b7 | ..]
  (void)d;
  constexpr size_t kN = hn::MaxLanes(D());
  const auto lo = FromBlocks<kN>([x, o](int k) { return LoadTwoPairs(x, o[4 * k], o[4 * k + 1]); });
  const auto hi = FromBlocks<kN>([x, o](int k) { return LoadTwoPairs(x, o[4 * k + 2], o[4 * k + 3]); });
  first->raw = ShuffleBlocks<_MM_SHUFFLE(2, 0, 2, 0)>(lo.raw, hi.raw);
  second->raw = ShuffleBlocks<_MM_SHUFFLE(3, 1, 3, 1)>(lo.raw, hi.raw);
#else
  const auto offset = hn::Load(hn::RebindToSigned<D>(), o);
  *first = hn::GatherIndex(d, x, offset);
  *second = hn::GatherIndex(d, x + 1, offset);
#endif
}

// q[k][i] = x[o[i] + k], k < 4, for the Lanes(d) offsets at `o`: one unaligned 4-float
// load per pixel, then a 4x4 transpose (per 128-bit block on x86):
//   r0 = [a0 a1 a2 a3]  r1 = [b0 ..]  r2 = [c0 ..]  r3 = [d0 ..]
//   t0 = [a0 b0 a1 b1]  t1 = [a2 b2 a3 b3]  t2 = [c0 d0 c1 d1]  t3 = [c2 d2 c3 d3]
//   q0 = [a0 b0 c0 d0]  q1 = [a1 b1 c1 d1]  q2 = [a2 b2 c2 d2]  q3 = [a3 b3 c3 d3]
template <class D>
HWY_INLINE void GatherQuad(D d, const float* x, const int32_t* o, hn::Vec<D>* q) {
#if HWY_TARGET == HWY_WASM
  (void)d;
  const v128_t r0 = wasm_v128_load(x + o[0]), r1 = wasm_v128_load(x + o[1]);
  const v128_t r2 = wasm_v128_load(x + o[2]), r3 = wasm_v128_load(x + o[3]);
  const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);
  const v128_t t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
  const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
  const v128_t t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
  q[0].raw = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
  q[1].raw = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
  q[2].raw = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
  q[3].raw = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
#elif GRIDSAMPLE_FAST_X86_BLOCKS
  // r[j]'s block k holds the 4 floats of pixel 4k + j (a, b, c, d above are pixels j = 0..3
  // of each block).
  const hn::Repartition<double, D> dd;
  hn::Vec<D> r[4];
  for (int j = 0; j < 4; ++j) {
    r[j] = FromBlocks<hn::MaxLanes(D())>([x, o, j](int k) { return _mm_loadu_ps(x + o[4 * k + j]); });
  }
  const auto t0 = hn::BitCast(dd, hn::InterleaveLower(d, r[0], r[1]));
  const auto t1 = hn::BitCast(dd, hn::InterleaveUpper(d, r[0], r[1]));
  const auto t2 = hn::BitCast(dd, hn::InterleaveLower(d, r[2], r[3]));
  const auto t3 = hn::BitCast(dd, hn::InterleaveUpper(d, r[2], r[3]));
  q[0] = hn::BitCast(d, hn::InterleaveLower(dd, t0, t2));
  q[1] = hn::BitCast(d, hn::InterleaveUpper(dd, t0, t2));
  q[2] = hn::BitCast(d, hn::InterleaveLower(dd, t1, t3));
  q[3] = hn::BitCast(d, hn::InterleaveUpper(dd, t1, t3));
#else
  const auto offset = hn::Load(hn::RebindToSigned<D>(), o);
  for (int k = 0; k < 4; ++k) q[k] = hn::GatherIndex(d, x + k, offset);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_FAST_PLAN_INL_H_
