// The blend for channels-last (interleaved) images, uint8 and float32 with 1 to 4 channels:
// each output pixel is summed from a tile's plans (planner/tile_plan-inl.h) with its channels as
// the lanes of one vector, so that a tap is one contiguous load of an input pixel's channels;
// float32 bilinear of 5 channels as two overlapping vectors. (More channels:
// blends/wide_pixels-inl.h.)
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_INTERLEAVED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_INTERLEAVED_INL_H_
#undef GRIDSAMPLE_BLENDS_INTERLEAVED_INL_H_
#else
#define GRIDSAMPLE_BLENDS_INTERLEAVED_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "planner/tile_plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// Three channels travel as four lanes: the fourth is junk (the next pixel's first channel),
// never stored except where the same thread overwrites the next pixel later.
template <int C>
constexpr size_t kPixelLanes = C == 3 ? 4 : C;
template <int C>
using PixelTag = hn::FixedTag<float, kPixelLanes<C>>;
template <int C>
using VP = hn::Vec<PixelTag<C>>;

template <int C>
HWY_INLINE VP<C> LoadPixel(const float* p) {
  return hn::LoadU(PixelTag<C>(), p);
}
// Bytes to floats exactly: a byte b as the low mantissa bits of 2^23 is the float 2^23 + b,
// and subtracting 2^23 leaves b. (The obvious widen-and-convert is worse on WASM: clang
// folds it into an unsigned conversion that wasm SIMD lacks and converts lane by lane.)
template <class DU>
HWY_INLINE hn::Vec<hn::Rebind<float, DU>> BytesToFloat(DU du, hn::Vec<DU> bytes) {
  const hn::Rebind<float, DU> df;
  const auto biased = hn::BitCast(df, hn::Or(bytes, hn::Set(du, 0x4B000000u)));
  return hn::Sub(biased, hn::Set(df, 8388608.0f));
}

// Lanes(df) bytes at p as floats, exactly.
template <class DF4>
HWY_INLINE hn::Vec<DF4> LoadBytes(DF4 /*df: its lane count*/, const uint8_t* p) {
  const hn::Rebind<uint8_t, DF4> d8;
  const hn::Rebind<uint32_t, DF4> d32;
  return BytesToFloat(d32, hn::PromoteTo(d32, hn::LoadU(d8, p)));
}

template <int C>
HWY_INLINE VP<C> LoadPixel(const uint8_t* p) {
  return LoadBytes(PixelTag<C>(), p);
}

// Two horizontally adjacent pixels p[0..C) and p[C..2C).
template <int C>
HWY_INLINE void LoadPair(const float* p, VP<C>* a, VP<C>* b) {
  *a = LoadPixel<C>(p);
  *b = LoadPixel<C>(p + C);
}
template <int C>
HWY_INLINE void LoadPair(const uint8_t* p, VP<C>* a, VP<C>* b) {
  if constexpr (C == 3) {
    *a = LoadPixel<C>(p);
    *b = LoadPixel<C>(p + C);
  } else {
    // One load of 2C bytes, widened once to 16 bits, then each half to 32 bits:
    //   [a0 .. aC-1 b0 .. bC-1] -> a = [a0 .. aC-1], b = [b0 .. bC-1]
    const hn::FixedTag<uint8_t, 2 * C> d8;
    const hn::FixedTag<uint16_t, 2 * C> d16;
    const hn::FixedTag<uint16_t, C> dh;
    const hn::FixedTag<uint32_t, C> d32;
    const auto v = hn::PromoteTo(d16, hn::LoadU(d8, p));
    *a = BytesToFloat(d32, hn::PromoteTo(d32, hn::LowerHalf(dh, v)));
    *b = BytesToFloat(d32, hn::PromoteTo(d32, hn::UpperHalf(dh, v)));
  }
}

// Stores all lanes (C = 3: one past the pixel, see StorePixelExact).
template <int C>
HWY_INLINE void StorePixel(VP<C> v, float* out) {
  hn::StoreU(v, PixelTag<C>(), out);
}
// v's Lanes(df) values as bytes at out, as the reference's integer store: round half to even,
// then saturate to [0, 255]; the same as saturating first. Adding 2^23 to a float in [0, 255]
// rounds it to an integer (half to even) in the low mantissa bits: the byte, without a
// float-to-int conversion (which Highway and V8 guard against overflow at several
// instructions' cost).
template <class DF4>
HWY_INLINE void StoreBytes(DF4 df, hn::Vec<DF4> v, uint8_t* out) {
  const hn::Rebind<uint32_t, DF4> d32;
  const hn::Rebind<uint8_t, DF4> d8;
  v = MinNoNaN(MaxNoNaN(v, hn::Zero(df)), hn::Set(df, 255.0f));
  const auto bits = hn::BitCast(d32, hn::Add(v, hn::Set(df, 8388608.0f)));
  hn::StoreU(hn::U8FromU32(hn::Sub(bits, hn::Set(d32, 0x4B000000u))), d8, out);
}
template <int C>
HWY_INLINE void StorePixel(VP<C> v, uint8_t* out) {
  StoreBytes(PixelTag<C>(), v, out);
}
// Exactly C elements, for the last pixel of a row segment: the pixel after it belongs to another
// work unit, which another thread may have written already.
template <int C, typename T>
HWY_INLINE void StorePixelExact(VP<C> v, T* out) {
  if constexpr (C == 3) {
    HWY_ALIGN T buf[4];
    StorePixel<C>(v, buf);
    std::memcpy(out, buf, 3 * sizeof(T));
  } else {
    StorePixel<C>(v, out);
  }
}

// Nearest: the reference's 0 + 1 * v, i.e. v (as +0 for -0) and the integer store of an
// integer, i.e. v.
template <int C>
HWY_INLINE void CopyPixel(const float* src, float* out) {
  for (int c = 0; c < C; ++c) out[c] = 0.0f + src[c];
}
template <int C>
HWY_INLINE void CopyPixel(const uint8_t* src, uint8_t* out) {
  std::memcpy(out, src, C);
}

// One batch item's X as the blend sees it.
template <typename T>
struct Image {
  const T* x;
  const T* tail;        // C = 3: X's last pixel and one zero, read instead of X's last pixel
  int32_t row;          // elements per row
  int32_t end_window;   // C = 3: offset of the only window that holds X's last pixel
  const float* fill;    // zeros padding's colour outside X (4 lanes), or null for 0
  const T* fill_pixel;  // fill stored as a pixel of T, or null for 0
};

// The weight of pixel p's taps outside X, 1 - the plan's weights (the tap weights sum to 1):
// fill times it is the per-tap sum's value within float32 rounding.
template <Mode M>
HWY_INLINE float OutsideWeight(const TilePlan<M, 2>& plan, int p) {
  float outside = 1.0f;
  for (int t = 0; t < kTaps<M> * kTaps<M>; ++t) outside -= plan.weight[t][p];
  return outside;
}
template <int C, Mode M>
HWY_INLINE VP<C> AddFill(const TilePlan<M, 2>& plan, int p, const float* fill, VP<C> acc) {
  const PixelTag<C> dp;
  return hn::Add(acc, hn::Mul(hn::Set(dp, OutsideWeight(plan, p)), LoadPixel<C>(fill)));
}

// Pixels [begin, end) of out, `bytes` each, that no tap reaches: 0, or fill_pixel when set.
inline HWY_NOINLINE void StoreOutside(const void* fill_pixel, size_t bytes, int begin, int end,
                                      void* out) {
  uint8_t* o = static_cast<uint8_t*>(out) + begin * bytes;
  if (fill_pixel == nullptr) {
    std::memset(o, 0, bytes * (end - begin));
    return;
  }
  for (int p = begin; p < end; ++p, o += bytes) std::memcpy(o, fill_pixel, bytes);
}

// Pixel p of a plan whose window holds X's last pixel (C = 3 only): as BlendPixels, but that
// pixel is read from `tail`, since four lanes from it would run past X.
template <typename T, int C, Mode M>
HWY_NOINLINE VP<C> BlendAtEnd(const TilePlan<M, 2>& plan, const Image<T>& im, int p) {
  const PixelTag<C> dp;
  constexpr int kT = kTaps<M>;
  VP<C> acc = hn::Zero(dp);
  for (int j = 0; j < kT; ++j) {
    for (int k = 0; k < kT; ++k) {
      const T* src =
          j == kT - 1 && k == kT - 1 ? im.tail : im.x + plan.offset[p] + j * im.row + k * C;
      acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[j * kT + k][p]), LoadPixel<C>(src)));
    }
  }
  return acc;
}

// Pixels [begin, end) of a tile's plans into out (pixel p at out + p * C), in the reference's
// order: the taps row by row, weight (1 * w_x) * w_y, summed from 0. Pixel `exact_end` (the
// last of a row segment, or -1) stores exactly C elements; the others may write one junk
// element past themselves (C = 3), which the next pixel overwrites.
template <typename T, int C, Mode M>
HWY_NOINLINE void BlendPixels(const TilePlan<M, 2>& plan, const Image<T>& im, int begin, int end,
                              int exact_end, T* out) {
  const PixelTag<C> dp;
  constexpr int kT = kTaps<M>;
  const float* const fill = im.fill;  // a local: the stores below may alias `im` (uint8)
  for (int p = begin; p < end; ++p) {
    const T* src = im.x + plan.offset[p];
    T* o = out + p * C;
    if (M == Mode::kNearest && C != 3) {
      // Weight 1, or 0 where zeros padding drops the tap: a select, not a branch (outside
      // pixels come unpredictably); 0 + v (as CopyPixel) stored as Y's dtype gives v's bits.
      const auto keep = hn::Ne(hn::Set(dp, plan.weight[0][p]), hn::Zero(dp));
      const VP<C> v = hn::Add(hn::Zero(dp), LoadPixel<C>(src));
      StorePixel<C>(hn::IfThenElse(keep, v, fill ? LoadPixel<C>(fill) : hn::Zero(dp)), o);
      continue;
    }
    if (M == Mode::kNearest) {  // three channels: the last pixel's four lanes would run past X
      if (plan.weight[0][p] != 0.0f) {
        CopyPixel<C>(src, o);
      } else {
        StoreOutside(im.fill_pixel, sizeof(T) * C, p, p + 1, out);
      }
      continue;
    }
    VP<C> acc;
    if (C == 3 && plan.offset[p] == im.end_window) {
      acc = BlendAtEnd<T, C, M>(plan, im, p);
    } else {
      acc = hn::Zero(dp);
      for (int j = 0; j < kT; ++j, src += im.row) {
        for (int k = 0; k < kT; k += 2) {
          VP<C> a, b;
          LoadPair<C>(src + k * C, &a, &b);
          acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[j * kT + k][p]), a));
          acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[j * kT + k + 1][p]), b));
        }
      }
    }
    if (fill != nullptr) acc = AddFill<C, M>(plan, p, fill, acc);
    if (C == 3 && p == exact_end) {
      StorePixelExact<C>(acc, o);
    } else {
      StorePixel<C>(acc, o);
    }
  }
}

// Pixels [begin, end) of a tile's bilinear plans into out (pixel p at out + 5 p), float32, five
// channels, without a fill colour: each pixel as two vectors of 4 lanes, channels 0-3 and 1-4,
// stored over each other (channels 1-3 are the same sums in both: the same bits), each in
// BlendPixels' order. Every load lies within its tap's own five values, every store within the
// pixel's. Instruction counts favoured a vector of pixels (blends/pixel_vectors-inl.h, which V8
// runs with some 40 vectors spilled; bench/README.md), wall time favours this: it took
// GridSampleChannelsLast of 8x80x80x5 at 300x4 points from 1.04-1.14x the time of NCHW's
// GridSample to 0.93-0.98x in wasm, and natively (AVX-512) from 0.93-0.95x to 0.91-0.93x.
inline HWY_NOINLINE void BlendFivePixels(const TilePlan<Mode::kLinear, 2>& plan,
                                         const Image<float>& im, int begin, int end,
                                         float* HWY_RESTRICT out) {
  const hn::FixedTag<float, 4> d;
  const float* const x = im.x;  // locals: the stores below may alias `im`
  const int32_t row = im.row;
  for (int p = begin; p < end; ++p) {
    const float* src = x + plan.offset[p];
    auto low = hn::Zero(d);   // channels 0-3
    auto high = hn::Zero(d);  // channels 1-4
    for (int j = 0; j < 2; ++j, src += row) {
      const auto w0 = hn::Set(d, plan.weight[2 * j][p]);
      const auto w1 = hn::Set(d, plan.weight[2 * j + 1][p]);
      low =
          hn::Add(hn::Add(low, hn::Mul(w0, hn::LoadU(d, src))), hn::Mul(w1, hn::LoadU(d, src + 5)));
      high = hn::Add(hn::Add(high, hn::Mul(w0, hn::LoadU(d, src + 1))),
                     hn::Mul(w1, hn::LoadU(d, src + 6)));
    }
    hn::StoreU(low, d, out + 5 * p);
    hn::StoreU(high, d, out + 5 * p + 1);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_INTERLEAVED_INL_H_
