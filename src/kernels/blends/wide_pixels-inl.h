// The blend for channels-last images of more than 4 channels (feature maps, deformable
// attention's values), uint8 and float32: each output pixel is summed from its plan (planner/
// tile_plan-inl.h) a vector of channels at a time, each tap one contiguous load of them.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_
#undef GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_
#else
#define GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "blends/interleaved-inl.h"
#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// A pixel's channels [c, c + Lanes(d)) as floats, and back as Y's dtype.
template <class D>
HWY_INLINE hn::Vec<D> LoadChannels(D d, const float* p) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadChannels(D d, const uint8_t* p) {
  return LoadBytes(d, p);
}
template <class D>
HWY_INLINE void StoreChannels(D d, hn::Vec<D> v, float* out) {
  hn::StoreU(v, d, out);
}
template <class D>
HWY_INLINE void StoreChannels(D d, hn::Vec<D> v, uint8_t* out) {
  StoreBytes(d, v, out);
}

// Pixels [begin, end) of a tile's plans into out (pixel p at out + p * channels), channels
// >= Lanes(d), in the reference's order: per vector of channels, the taps row by row, weight
// (1 * w_x) * w_y, summed from 0. A channel count that is not a multiple of Lanes(d) ends
// with a vector that overlaps the one before it: those channels are computed twice, the same
// way, so every load and store stays inside the pixel (no masks, no scalar tail).
//
//   channels 0 .. 9, 4 lanes:  [0 1 2 3] [4 5 6 7] [6 7 8 9]
template <typename T, Mode M, class D>
HWY_NOINLINE void BlendWidePixels(D d, const TilePlan<M, 2>& plan, const Image<T>& im, int channels,
                                  int begin, int end, T* out) {
  constexpr int kT = kTaps<M>;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const int last = channels - lanes;  // where the last vector starts
  const float* const fill = im.fill;  // locals: the stores below may alias `im` (uint8)
  const T* const x = im.x;
  const int32_t row = im.row;
  for (int p = begin; p < end; ++p) {
    const T* src = x + plan.offset[p];
    T* o = out + static_cast<int64_t>(p) * channels;
    if (M == Mode::kNearest) {
      // Weight 1, or 0 where zeros padding drops the tap (the window stays inside X): a
      // select, not a branch (outside pixels come unpredictably); 0 + 1 * v is v, +0 for -0.
      const auto keep = hn::Ne(hn::Set(d, plan.weight[0][p]), hn::Zero(d));
      for (int c = 0;; c = c + lanes < last ? c + lanes : last) {
        const hn::Vec<D> v = hn::Add(hn::Zero(d), LoadChannels(d, src + c));
        const hn::Vec<D> outside = fill != nullptr ? hn::LoadU(d, fill + c) : hn::Zero(d);
        StoreChannels(d, hn::IfThenElse(keep, v, outside), o + c);
        if (c == last) break;
      }
      continue;
    }
    const float outside = fill != nullptr ? OutsideWeight(plan, p) : 0.0f;
    for (int c = 0;; c = c + lanes < last ? c + lanes : last) {
      hn::Vec<D> acc = hn::Zero(d);
      const T* tap = src + c;
      for (int j = 0; j < kT; ++j, tap += row) {
        for (int k = 0; k < kT; ++k) {
          const hn::Vec<D> w = hn::Set(d, plan.weight[j * kT + k][p]);
          acc = hn::Add(acc, hn::Mul(w, LoadChannels(d, tap + k * channels)));
        }
      }
      if (fill != nullptr) acc = hn::Add(acc, hn::Mul(hn::Set(d, outside), hn::LoadU(d, fill + c)));
      StoreChannels(d, acc, o + c);
      if (c == last) break;
    }
  }
}

// The same with the widest vectors that the channel count fills: the target's, else 4 lanes
// (more than 4 channels fill those).
template <typename T, Mode M>
HWY_INLINE void BlendWide(const TilePlan<M, 2>& plan, const Image<T>& im, int channels, int begin,
                          int end, T* out) {
  if (channels >= static_cast<int>(hn::Lanes(DF()))) {
    return BlendWidePixels<T, M>(DF(), plan, im, channels, begin, end, out);
  }
  BlendWidePixels<T, M>(hn::CappedTag<float, 4>(), plan, im, channels, begin, end, out);
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_
