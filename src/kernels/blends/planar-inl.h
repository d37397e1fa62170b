// The blend for NCHW planes: from a tile's plans (planner/tile_plan-inl.h), every channel's plane
// is read at the window taps and summed in the reference's order. Reads only in-bounds memory
// (windows lie inside the image), no bounds checks, no branches on mode or padding. Included once
// per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_PLANAR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_PLANAR_INL_H_
#undef GRIDSAMPLE_BLENDS_PLANAR_INL_H_
#else
#define GRIDSAMPLE_BLENDS_PLANAR_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "blends/gather-inl.h"
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The blend's vectors: the plan's width, but 8 lanes on AVX-512, where 16-lane vectors made
// the blend-bound workloads slower than AVX2 (their taps are loaded and assembled 128 bits at
// a time either way); the plan keeps 16 lanes, which made planning faster (bench/README.md).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
using DB = hn::CappedTag<float, 8>;
#else
using DB = DF;
#endif
using VB = hn::Vec<DB>;

// Sum over window taps of weight * x[offset + tap] for the pixels [p, p + Lanes) of the
// tile, in the reference's order.
template <Mode M, int kRank>
HWY_INLINE VB BlendVector(const TilePlan<M, kRank>& plan, int p, const int32_t* tap_offset,
                          const float* x) {
  const DB d;
  constexpr int kW = TilePlan<M, kRank>::kWeights;
  if (M == Mode::kNearest) {
    return hn::IfThenElseZero(hn::Ne(hn::Load(d, plan.weight[0] + p), hn::Zero(d)),
                              Gather(d, x, plan.offset + p));
  }
  VB acc = hn::Zero(d);
  if (M == Mode::kCubic) {  // runs of 4 taps along the innermost axis
    for (int t = 0; t < kW; t += 4) {
      VB q[4];
      GatherQuad(d, x + tap_offset[t], plan.offset + p, q);
      for (int k = 0; k < 4; ++k) {
        const VB wq = hn::Mul(hn::Load(d, plan.weight[t + k] + p), q[k]);
        acc = t + k == 0 ? wq : hn::Add(acc, wq);
      }
    }
    return acc;
  }
  // Runs of 2 taps along the innermost axis: read them a pair at a time.
  for (int t = 0; t < kW; t += 2) {
    VB a, b;
    GatherPair(d, x + tap_offset[t], plan.offset + p, &a, &b);
    const VB wa = hn::Load(d, plan.weight[t] + p);
    acc = t == 0 ? hn::Mul(wa, a) : hn::Add(acc, hn::Mul(wa, a));
    acc = hn::Add(acc, hn::Mul(hn::Load(d, plan.weight[t + 1] + p), b));
  }
  return acc;
}

// The element offset of each window tap from the window start, for X's element strides
// (outermost axis first); taps innermost axis fastest, as the plans' weights.
template <Mode M, int kRank>
HWY_INLINE void TapOffsets(const int32_t* stride, int32_t* tap_offset) {
  constexpr int kT = kTaps<M>;
  for (int t = 0; t < TilePlan<M, kRank>::kWeights; ++t) {
    int rest = t, off = 0;
    for (int a = kRank - 1; a >= 0; --a) {
      off += (rest % kT) * stride[a];
      rest /= kT;
    }
    tap_offset[t] = off;
  }
}

// Channels BlendTile takes at once (kCh) for mode M: pairs, but one for cubic (see BlendTile)
// and on EMU128 / SCALAR (scalar code has no vector registers to share, and the pairs grew
// the scalar wasm).
template <Mode M>
constexpr int kChannelsPerPass =
    M != Mode::kCubic&& HWY_TARGET != HWY_EMU128&& HWY_TARGET != HWY_SCALAR ? 2 : 1;

// Stores v's first `valid` lanes (a whole vector or the tile's partial last one) at `out`.
HWY_INLINE void StoreLanes(VB v, int valid, float* out) {
  const DB d;
  if (valid >= static_cast<int>(hn::Lanes(d))) {
    hn::StoreU(v, d, out);
  } else {
    HWY_ALIGN float part[hn::MaxLanes(DB())];
    hn::Store(v, d, part);
    std::memcpy(out, part, sizeof(float) * valid);
  }
}

// Channels x[0..kCh) of a tile into out[0..kCh): the tile's `count` pixels. The channels
// share the plans, so blending two at a time loads each offset and weight once for both
// (fewer wasm instructions per call); a last odd channel goes alone, two vectors per
// iteration (V8 spends a fifth of a one-vector iteration on the loop itself).
// Cubic takes one channel and one vector at a time: its loads already crowd the registers.
template <Mode M, int kRank, int kCh>
HWY_INLINE void BlendTile(const TilePlan<M, kRank>& plan, int count,
                          const int32_t* HWY_RESTRICT tap_offset, const float* const* x,
                          float* const* out) {
  const DB d;
  const int lanes = static_cast<int>(hn::Lanes(d));
#if HWY_TARGET == HWY_WASM
  if constexpr (M == Mode::kCubic) {
    // A few rows of the window at a time (2-D: two, 3-D: one; fewest instructions in V8),
    // each pass over the whole tile, summing into `acc` in the reference's order: not the
    // window's 16 or 64 taps per vector at once, whose loads V8 cannot keep in registers
    // (fewer wasm instructions per call; natively it costs more).
    static_assert(kCh == 1, "cubic blends one channel at a time");
    constexpr int kW = TilePlan<M, kRank>::kWeights;
    constexpr int kRows = kRank == 2 ? 2 : 1;
    HWY_ALIGN float acc[TilePlan<M, kRank>::kPixels + kMaxLanes] = {};
    for (int t = 0; t < kW; t += 4 * kRows) {
      for (int p = 0; p < count; p += lanes) {
        VB q[4 * kRows];
        for (int r = 0; r < kRows; ++r) {
          GatherQuad(d, x[0] + tap_offset[t + 4 * r], plan.offset + p, q + 4 * r);
        }
        VB a = hn::Load(d, acc + p);
        for (int k = 0; k < 4 * kRows; ++k) {
          a = hn::Add(a, hn::Mul(hn::Load(d, plan.weight[t + k] + p), q[k]));
        }
        hn::Store(a, d, acc + p);
      }
    }
    std::memcpy(out[0], acc, sizeof(float) * count);
    return;
  }
#endif
  float* HWY_RESTRICT o[kCh];
  for (int c = 0; c < kCh; ++c) o[c] = out[c];
  // One channel: two vectors per iteration (nearest and 2-D linear).
  constexpr bool kLight = M == Mode::kNearest || (M == Mode::kLinear && kRank == 2);
  constexpr int kUnroll = kCh == 1 && kLight ? 2 : 1;
  int p = 0;
  for (; p + kUnroll * lanes <= count; p += kUnroll * lanes) {
    VB v[kUnroll][kCh];
    for (int u = 0; u < kUnroll; ++u) {
      for (int c = 0; c < kCh; ++c) {
        v[u][c] = BlendVector<M, kRank>(plan, p + u * lanes, tap_offset, x[c]);
      }
    }
    for (int u = 0; u < kUnroll; ++u) {
      for (int c = 0; c < kCh; ++c) hn::StoreU(v[u][c], d, o[c] + p + u * lanes);
    }
  }
  for (; p < count; p += lanes) {  // the rest: whole vectors, then a partial one
    for (int c = 0; c < kCh; ++c) {
      StoreLanes(BlendVector<M, kRank>(plan, p, tap_offset, x[c]), count - p, o[c] + p);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_PLANAR_INL_H_
