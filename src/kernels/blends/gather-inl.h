// Per-ISA loads of a vector of pixels' taps for the blends: single taps, pairs and runs of
// four along the innermost axis, from a plan's offsets. No hardware gathers on x86 (see
// bench/README.md, "Measurements behind the kernels").
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_GATHER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_GATHER_INL_H_
#undef GRIDSAMPLE_BLENDS_GATHER_INL_H_
#else
#define GRIDSAMPLE_BLENDS_GATHER_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#undef GRIDSAMPLE_FAST_X86_BLOCKS  // this file is read once per target
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
// x86, SSSE3 to AVX-512: the taps of a vector of pixels come from scalar, 64-bit and 128-bit
// loads, one 128-bit block of 4 pixels at a time, then rearranged within blocks only: the
// hardware gathers (vgatherdps) were slower on every workload measured (bench/README.md).
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

// shufps on every 128-bit block: lanes i0, i1 of a, then i2, i3 of b (kImm = _MM_SHUFFLE(i3, i2,
// i1, i0)).
template <int kImm>
HWY_INLINE __m128 ShuffleBlocks(__m128 a, __m128 b) {
  return _mm_shuffle_ps(a, b, kImm);
}
#if HWY_TARGET <= HWY_AVX2
template <int kImm>
HWY_INLINE __m256 ShuffleBlocks(__m256 a, __m256 b) {
  return _mm256_shuffle_ps(a, b, kImm);
}
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
  const auto hi =
      FromBlocks<kN>([x, o](int k) { return LoadTwoPairs(x, o[4 * k + 2], o[4 * k + 3]); });
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
    r[j] =
        FromBlocks<hn::MaxLanes(D())>([x, o, j](int k) { return _mm_loadu_ps(x + o[4 * k + j]); });
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

#endif  // GRIDSAMPLE_BLENDS_GATHER_INL_H_
