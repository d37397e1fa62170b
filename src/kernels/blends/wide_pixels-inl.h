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

// Nearest's channels [c, c + Lanes(d)) of one pixel: weight 1, or 0 where zeros padding drops
// the tap (the window stays inside X), as `keep`; a select, not a branch (outside pixels come
// unpredictably); 0 + 1 * v is v, +0 for -0.
template <typename T, class D, class M>
HWY_INLINE void NearestChannels(D d, M keep, const T* src, const float* fill, int c, T* o) {
  const hn::Vec<D> v = hn::Add(hn::Zero(d), LoadChannels(d, src + c));
  const hn::Vec<D> outside = fill != nullptr ? hn::LoadU(d, fill + c) : hn::Zero(d);
  StoreChannels(d, hn::IfThenElse(keep, v, outside), o + c);
}

// Pixels [begin, end) of a tile's plans into out (pixel p at out + p * channels), channels
// >= Lanes(d), in the reference's order: per vector of channels, the taps row by row, weight
// (1 * w_x) * w_y, summed from 0. A channel count that is not a multiple of Lanes(d) ends
// with a vector that overlaps the one before it: those channels are computed twice, the same
// way, so every load and store stays inside the pixel (no masks, no scalar tail).
//
//   channels 0 .. 9, 4 lanes:  [0 1 2 3] [4 5 6 7] [6 7 8 9]
//
// kVec = 0: any number of vectors, one after the other. kVec = 2 to 4 (nearest; linear 2 and 3):
// exactly kVec vectors, unrolled, the taps outside and the vectors inside, each vector in an
// accumulator of its own: every lane still sums its taps in the reference's order, but a tap's
// weight is read and its address made once for all of them. (The others stay with kVec = 0: in
// wasm cubic over 2 vectors and linear over 4 took 5% longer the other way.)
template <int kVec, typename T, Mode M, class D>
HWY_NOINLINE void BlendWidePixels(D d, const TilePlan<M, 2>& plan, const Image<T>& im, int channels,
                                  int begin, int end, T* out) {
  constexpr int kT = kTaps<M>;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const int last = channels - lanes;  // where the last vector starts
  int c[kVec > 0 ? kVec : 1];         // kVec > 0: where each vector starts
  for (int i = 0; i < kVec; ++i) c[i] = i * lanes < last ? i * lanes : last;
  const float* const fill = im.fill;  // locals: the stores below may alias `im` (uint8)
  const T* const x = im.x;
  const int32_t row = im.row;
  for (int p = begin; p < end; ++p) {
    const T* src = x + plan.offset[p];
    T* o = out + static_cast<int64_t>(p) * channels;
    if (M == Mode::kNearest) {
      const auto keep = hn::Ne(hn::Set(d, plan.weight[0][p]), hn::Zero(d));
      for (int i = 0; i < kVec; ++i) NearestChannels(d, keep, src, fill, c[i], o);
      for (int v = 0; kVec == 0; v = v + lanes < last ? v + lanes : last) {
        NearestChannels(d, keep, src, fill, v, o);
        if (v == last) break;
      }
      continue;
    }
    if constexpr (kVec > 0) {
      hn::Vec<D> acc[kVec];
      for (int i = 0; i < kVec; ++i) acc[i] = hn::Zero(d);
      for (int j = 0; j < kT; ++j, src += row) {
        for (int k = 0; k < kT; ++k) {
          const hn::Vec<D> w = hn::Set(d, plan.weight[j * kT + k][p]);
          const T* tap = src + k * channels;
          for (int i = 0; i < kVec; ++i) {
            acc[i] = hn::Add(acc[i], hn::Mul(w, LoadChannels(d, tap + c[i])));
          }
        }
      }
      if (fill != nullptr) {
        const hn::Vec<D> outside = hn::Set(d, OutsideWeight(plan, p));
        for (int i = 0; i < kVec; ++i) {
          acc[i] = hn::Add(acc[i], hn::Mul(outside, hn::LoadU(d, fill + c[i])));
        }
      }
      for (int i = 0; i < kVec; ++i) StoreChannels(d, acc[i], o + c[i]);
      continue;
    }
    const float outside = fill != nullptr ? OutsideWeight(plan, p) : 0.0f;
    for (int v = 0;; v = v + lanes < last ? v + lanes : last) {
      hn::Vec<D> acc = hn::Zero(d);
      const T* tap = src + v;
      for (int j = 0; j < kT; ++j, tap += row) {
        for (int k = 0; k < kT; ++k) {
          const hn::Vec<D> w = hn::Set(d, plan.weight[j * kT + k][p]);
          acc = hn::Add(acc, hn::Mul(w, LoadChannels(d, tap + k * channels)));
        }
      }
      if (fill != nullptr) acc = hn::Add(acc, hn::Mul(hn::Set(d, outside), hn::LoadU(d, fill + v)));
      StoreChannels(d, acc, o + v);
      if (v == last) break;
    }
  }
}

// BlendWidePixels with kVec for the vectors of d that hold the channels where it unrolls them
// (see there), else any number.
template <typename T, Mode M, class D>
HWY_INLINE void BlendWideWith(D d, const TilePlan<M, 2>& plan, const Image<T>& im, int channels,
                              int begin, int end, T* out) {
  if constexpr (M != Mode::kCubic) {
    const int lanes = static_cast<int>(hn::Lanes(d));
    switch ((channels + lanes - 1) / lanes) {
      case 2: return BlendWidePixels<2, T, M>(d, plan, im, channels, begin, end, out);
      case 3: return BlendWidePixels<3, T, M>(d, plan, im, channels, begin, end, out);
      case 4:
        if constexpr (M == Mode::kNearest) {
          return BlendWidePixels<4, T, M>(d, plan, im, channels, begin, end, out);
        }
        break;
      default: break;
    }
  }
  BlendWidePixels<0, T, M>(d, plan, im, channels, begin, end, out);
}

// The same with the widest vectors that the channel count fills: the target's, else 4 lanes
// (more than 4 channels fill those).
template <typename T, Mode M>
HWY_INLINE void BlendWide(const TilePlan<M, 2>& plan, const Image<T>& im, int channels, int begin,
                          int end, T* out) {
  if (channels >= static_cast<int>(hn::Lanes(DF()))) {
    return BlendWideWith<T, M>(DF(), plan, im, channels, begin, end, out);
  }
  BlendWideWith<T, M>(hn::CappedTag<float, 4>(), plan, im, channels, begin, end, out);
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_WIDE_PIXELS_INL_H_
