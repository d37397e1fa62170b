// The bilinear blend for channels-last float32 images of one to three channels, a vector of
// output pixels at a time (as the NCHW blend), not one pixel per vector (blends/interleaved-inl.h).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_PIXEL_VECTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_PIXEL_VECTORS_INL_H_
#undef GRIDSAMPLE_BLENDS_PIXEL_VECTORS_INL_H_
#else
#define GRIDSAMPLE_BLENDS_PIXEL_VECTORS_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "blends/gather-inl.h"
#include "blends/interleaved-inl.h"
#include "blends/planar-inl.h"
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"

#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// The bilinear sums of pixels [p, p + Lanes(DB)) of a tile's plans (DB: the NCHW blend's vectors,
// 8 lanes on AVX-512, as GatherPair assembles them), C = 1 to 3 (acc[c]: channel c). A window
// row's 2C values x[o .. o + 2C) come as C pairs (GatherPair at o, o + 2, ..; in wasm 3
// channels as a quad at o and a pair at o + 4: V8 spends two instructions on each load, and a
// quad loads 4 values a pixel, a pair 2), so never past the window (BlendPixels reads 4 lanes from
// the last tap, hence its `tail`): q[c] is channel c of tap (j, 0), q[C + c] of tap (j, 1) (C = 1:
// the two taps of the one channel). Per lane and channel the sum is BlendPixels': from 0, the
// taps row by row, weight (1 * w_x) * w_y, so the same bits.
// C = 2 in wasm instead: acc[0] and acc[1] hold pixels 0-1 and 2-3, interleaved as stored
// (StorePixelVector). A window row is then one load per pixel, x[o .. o + 4) = [c0 c1 c0 c1]
// of taps (j, 0) and (j, 1), and each weight is paired with itself, [w.p0 w.p0 w.p1 w.p1]: the
// same sums per lane, in fewer V8 instructions than four 64-bit lane loads per pixel.
template <int C>
HWY_INLINE void SumPixelVector(const TilePlan<Mode::kLinear, 2>& plan, const float* x, int32_t row,
                               int p, VB* acc) {
  const DB d;
  const int32_t* o = plan.offset + p;
  for (int c = 0; c < C; ++c) acc[c] = hn::Zero(d);
#if HWY_TARGET == HWY_WASM
  if constexpr (C == 2) {
    for (int j = 0; j < 2; ++j) {
      const float* r = x + j * row;
      const v128_t r0 = wasm_v128_load(r + o[0]), r1 = wasm_v128_load(r + o[1]);
      const v128_t r2 = wasm_v128_load(r + o[2]), r3 = wasm_v128_load(r + o[3]);
      const v128_t w0 = hn::Load(d, plan.weight[2 * j] + p).raw;
      const v128_t w1 = hn::Load(d, plan.weight[2 * j + 1] + p).raw;
      const v128_t pairs[2][2] = {
          // [pixels 0-1 or 2-3][tap (j, 0) or (j, 1)]
          {wasm_i32x4_shuffle(r0, r1, 0, 1, 4, 5), wasm_i32x4_shuffle(r0, r1, 2, 3, 6, 7)},
          {wasm_i32x4_shuffle(r2, r3, 0, 1, 4, 5), wasm_i32x4_shuffle(r2, r3, 2, 3, 6, 7)}};
      const v128_t weights[2][2] = {
          {wasm_i32x4_shuffle(w0, w0, 0, 0, 1, 1), wasm_i32x4_shuffle(w1, w1, 0, 0, 1, 1)},
          {wasm_i32x4_shuffle(w0, w0, 2, 2, 3, 3), wasm_i32x4_shuffle(w1, w1, 2, 2, 3, 3)}};
      for (int h = 0; h < 2; ++h) {
        acc[h].raw =
            wasm_f32x4_add(wasm_f32x4_add(acc[h].raw, wasm_f32x4_mul(weights[h][0], pairs[h][0])),
                           wasm_f32x4_mul(weights[h][1], pairs[h][1]));
      }
    }
    return;
  }
#endif
  for (int j = 0; j < 2; ++j) {
    const VB w0 = hn::Load(d, plan.weight[2 * j] + p);
    const VB w1 = hn::Load(d, plan.weight[2 * j + 1] + p);
    VB q[2 * C];
    if constexpr (C == 3 && HWY_TARGET == HWY_WASM) {
      GatherQuad(d, x + j * row, o, q);
      GatherPair(d, x + j * row + 4, o, &q[4], &q[5]);
    } else {
      for (int k = 0; k < C; ++k) GatherPair(d, x + j * row + 2 * k, o, &q[2 * k], &q[2 * k + 1]);
    }
    for (int c = 0; c < C; ++c) {
      acc[c] = hn::Add(hn::Add(acc[c], hn::Mul(w0, q[c])), hn::Mul(w1, q[C + c]));
    }
  }
}

// The C channel vectors as C * Lanes interleaved values at out:
//   C = 2: acc0 = [p0.c0 p1.c0 p2.c0 p3.c0]  acc1 = [p0.c1 ..]  ->  [p0.c0 p0.c1 p1.c0 ..]
//   C = 3: acc0, acc1, acc2  ->  [p0.c0 p0.c1 p0.c2 p1.c0 ..]
template <int C>
HWY_INLINE void StorePixelVector(const VB* acc, float* out) {
  const DB d;
  if constexpr (C == 1) {
    hn::StoreU(acc[0], d, out);
  } else if constexpr (C == 2) {
#if HWY_TARGET == HWY_WASM
    hn::StoreU(acc[0], d, out);  // already interleaved (SumPixelVector)
    hn::StoreU(acc[1], d, out + 4);
#else
    hn::StoreInterleaved2(acc[0], acc[1], d, out);
#endif
  } else {
    static_assert(C == 3, "1, 2 or 3 channels");
#if HWY_TARGET == HWY_WASM
    (void)d;
    // Two channels' pairs, then each pixel as [c0 c1 c2 junk] (one shufps each in V8), stored
    // in order so that each overwrites the last one's junk; the last pixel exactly (a pair and
    // a lane). StoreInterleaved3 is nine byte-table lookups (i8x16.swizzle) and six ORs.
    //   t0 = [p0.c0 p0.c1 p1.c0 p1.c1]  t1 = [p2.c0 p2.c1 p3.c0 p3.c1]  acc2 = [p0.c2 .. p3.c2]
    const v128_t t0 = wasm_i32x4_shuffle(acc[0].raw, acc[1].raw, 0, 4, 1, 5);
    const v128_t t1 = wasm_i32x4_shuffle(acc[0].raw, acc[1].raw, 2, 6, 3, 7);
    wasm_v128_store(out, wasm_i32x4_shuffle(t0, acc[2].raw, 0, 1, 4, 5));
    wasm_v128_store(out + 3, wasm_i32x4_shuffle(t0, acc[2].raw, 2, 3, 5, 6));
    wasm_v128_store(out + 6, wasm_i32x4_shuffle(t1, acc[2].raw, 0, 1, 6, 7));
    wasm_v128_store64_lane(out + 9, t1, 1);
    wasm_v128_store32_lane(out + 11, acc[2].raw, 3);
#else
    hn::StoreInterleaved3(acc[0], acc[1], acc[2], d, out);
#endif
  }
}

// Pixels [begin, end) of a tile's bilinear plans (begin a multiple of Lanes) into out (pixel p
// at out + p * C), float32, C = 1, 2 or 3, without a fill colour: a vector of pixels at a
// time (four channels blend fastest a pixel per vector, BlendPixels, and five as two vectors a
// pixel, BlendFivePixels). In
// wasm the loop of a vector per pixel (BlendPixels), which loads and splats every weight alone,
// cost twice the NCHW blend of the same points at one and two channels; at three it took
// GridSampleChannelsLast of 8x80x80x3 at 300x4 points from 1.18x NCHW's time to 0.90x natively
// (AVX-512), and in wasm from 115 to 109 instructions per point in V8 (NCHW: 79).
template <int C>
HWY_NOINLINE void BlendPixelVectors(const TilePlan<Mode::kLinear, 2>& plan, const Image<float>& im,
                                    int begin, int end, float* HWY_RESTRICT out) {
  const int lanes = static_cast<int>(hn::Lanes(DB()));
  const float* const x = im.x;  // locals: the stores below may alias `im`
  const int32_t row = im.row;
  int p = begin;
  if constexpr (C == 1) {  // two vectors per iteration, as the NCHW blend of one channel
    for (; p + 2 * lanes <= end; p += 2 * lanes) {
      VB acc[2];
      SumPixelVector<C>(plan, x, row, p, acc);
      SumPixelVector<C>(plan, x, row, p + lanes, acc + 1);
      StorePixelVector<C>(acc, out + p);
      StorePixelVector<C>(acc + 1, out + p + lanes);
    }
  }
  for (; p < end; p += lanes) {
    VB acc[C];
    SumPixelVector<C>(plan, x, row, p, acc);
    if (end - p >= lanes) {
      StorePixelVector<C>(acc, out + p * C);
      continue;
    }
    HWY_ALIGN float part[C * kMaxLanes];  // the pixels after `end` belong to another work unit
    StorePixelVector<C>(acc, part);
    std::memcpy(out + p * C, part, sizeof(float) * C * (end - p));
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_PIXEL_VECTORS_INL_H_
