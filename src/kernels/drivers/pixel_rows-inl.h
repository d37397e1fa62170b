// What the pixels driver (pixels_driver.cc) does with one row segment once it is planned: the
// interleaved blend for X's dtype and channel count, or uint8 bilinear's fixed-point loop where
// windows lie inside X; the fill colour as the blends take it; and what every segment of one
// call shares (CallRows).
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_DRIVERS_PIXEL_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_DRIVERS_PIXEL_ROWS_INL_H_
#undef GRIDSAMPLE_DRIVERS_PIXEL_ROWS_INL_H_
#else
#define GRIDSAMPLE_DRIVERS_PIXEL_ROWS_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "blends/fixed_point_u8-inl.h"
#include "blends/interleaved-inl.h"
#include "blends/pixel_vectors-inl.h"
#include "blends/wide_pixels-inl.h"
#include "drivers/fast.h"
#include "hwy/highway.h"
#include "planner/limits.h"
#include "planner/tile_plan-inl.h"
#include "sources/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// One batch item's X for the blends, whatever its dtype (BlendSegment casts it back).
struct ImageBytes {
  const void* x;
  const void* tail;
  int32_t row, end_window;
  const float* fill;
  const void* fill_pixel;
};

// One batch item's X as the blends of dtype T see it.
template <typename T>
HWY_INLINE Image<T> ImageOf(const ImageBytes& im) {
  return Image<T>{static_cast<const T*>(im.x),
                  static_cast<const T*>(im.tail),
                  im.row,
                  im.end_window,
                  im.fill,
                  static_cast<const T*>(im.fill_pixel)};
}

// Pixels [begin, end) of the plans with the blend of X's dtype (uint8 or float32) and channel
// count: one vector per pixel up to 4 channels, vectors of channels beyond; float32 bilinear
// without a fill colour of 1, 2 or 3 channels a vector of pixels at a time, of 5 two overlapping
// vectors a pixel (not on EMU128, the scalar wasm's target, whose gathers are loops of lanes).
template <Mode M, typename T>
HWY_INLINE void BlendChannelsOf(const TilePlan<M, 2>& plan, int channels, const ImageBytes& im,
                                int begin, int end, int exact_end, void* out) {
  const Image<T> image = ImageOf<T>(im);
  T* const o = static_cast<T*>(out);
  if constexpr (M == Mode::kLinear && std::is_same_v<T, float> && HWY_TARGET != HWY_EMU128) {
    if (channels == 1 && im.fill == nullptr)
      return BlendPixelVectors<1>(plan, image, begin, end, o);
    if (channels == 2 && im.fill == nullptr)
      return BlendPixelVectors<2>(plan, image, begin, end, o);
    if (channels == 3 && im.fill == nullptr)
      return BlendPixelVectors<3>(plan, image, begin, end, o);
    if (channels == 5 && im.fill == nullptr) return BlendFivePixels(plan, image, begin, end, o);
  }
  switch (channels) {
    case 1: return BlendPixels<T, 1, M>(plan, image, begin, end, exact_end, o);
    case 2: return BlendPixels<T, 2, M>(plan, image, begin, end, exact_end, o);
    case 3: return BlendPixels<T, 3, M>(plan, image, begin, end, exact_end, o);
    case 4: return BlendPixels<T, 4, M>(plan, image, begin, end, exact_end, o);
    default: return BlendWide<T, M>(plan, image, channels, begin, end, o);
  }
}
template <Mode M>
HWY_INLINE void BlendSegment(const TilePlan<M, 2>& plan, DType dtype, int channels,
                             const ImageBytes& im, int begin, int end, int exact_end, void* out) {
  if (dtype == DType::kUint8) {
    return BlendChannelsOf<M, uint8_t>(plan, channels, im, begin, end, exact_end, out);
  }
  BlendChannelsOf<M, float>(plan, channels, im, begin, end, exact_end, out);
}

// What the fixed-point blend needs besides the source: its constants' inputs and the byte
// tables of FixedBlend, made once per call.
struct FixedSetup {
  int32_t w, h, row, c;
  VI opaque_zero;
  hn::Vec<hn::Full128<uint8_t>> idx_left, idx_right;
};

// 0, as a value the compiler cannot know: a volatile read, once per call.
HWY_INLINE int32_t OpaqueZero() {
  static volatile int32_t zero = 0;
  return zero;
}

HWY_INLINE FixedSetup MakeFixedSetup(const InterleavedProblem& pb, int32_t row) {
  HWY_ALIGN uint8_t idx[2][16] = {};
  switch (pb.c) {
    case 1: FixedIndices<1>(idx[0], idx[1]); break;
    case 2: FixedIndices<2>(idx[0], idx[1]); break;
    case 3: FixedIndices<3>(idx[0], idx[1]); break;
    default: FixedIndices<4>(idx[0], idx[1]); break;
  }
  // XOR with a zero the compiler cannot see: a table of known constants becomes a constant
  // shuffle, which clang lowers to byte copies through memory and V8 rebuilds per pixel.
  const hn::Full128<uint8_t> d8;
  const int32_t opaque = OpaqueZero();
  const auto opaque_bytes = hn::BitCast(d8, hn::Set(hn::Full128<int32_t>(), opaque));
  // Aggregate initialisation: a default-constructed vector member would need the struct's
  // implicit constructor, which GCC does not compile for the target (NEON).
  return FixedSetup{pb.axes.in_w,
                    pb.axes.in_h,
                    row,
                    pb.c,
                    hn::Set(DI(), opaque),
                    hn::Xor(hn::Load(d8, idx[0]), opaque_bytes),
                    hn::Xor(hn::Load(d8, idx[1]), opaque_bytes)};
}

// The fixed-point loop over vectors [v, count) of one row segment; returns the first vector
// whose windows do not all lie inside X (count when none). A loop of its own: small enough
// for V8 to keep in registers.
template <int C, class Source>
HWY_NOINLINE int FixedRow(const Source& source, const TileCoords<2>& coords,
                          const FixedSetup& setup, const uint8_t* x, int v, int count,
                          uint8_t* out) {
  // Local copies: the bytes stored to `out` could alias the originals, which the compiler
  // would then reload for every pixel.
  const FixedSetup s = setup;
  const auto positions = source.Positions(coords);
  const int lanes = static_cast<int>(hn::Lanes(DF()));
  const FixedConsts k = MakeFixedConsts(s.w, s.h, s.row, s.c, s.opaque_zero);
  const auto one = [&](auto check) {
    VF px, py;
    positions.At(v, &px, &py);
    FixedPlan plan;
    if (!FixedPlanVector<C, decltype(check)::value>(k, px, py, &plan)) return false;
    const int valid = count - v < lanes ? count - v : lanes;
    FixedBlend<C>(plan, x, s.row, s.idx_left, s.idx_right, valid, v + valid == count, out + v * C);
    return true;
  };
  if constexpr (Source::kKnowsInterior) {
    // Vectors the source knows to lie inside skip the test (not C = 3, whose test has one
    // more condition).
    const auto interior = C != 3 ? source.InteriorVectors(v) : std::make_pair(count, count);
    for (; v < interior.first; v += lanes) {
      if (!one(std::true_type())) return v;
    }
    for (; v < interior.second; v += lanes) one(std::false_type());
  }
  for (; v < count; v += lanes) {
    if (!one(std::true_type())) return v;
  }
  return count;
}

template <class Source>
HWY_INLINE int FixedRowOf(int channels, const Source& source, const TileCoords<2>& coords,
                          const FixedSetup& s, const uint8_t* x, int v, int count, uint8_t* out) {
  switch (channels) {
    case 1: return FixedRow<1>(source, coords, s, x, v, count, out);
    case 2: return FixedRow<2>(source, coords, s, x, v, count, out);
    case 3: return FixedRow<3>(source, coords, s, x, v, count, out);
    default: return FixedRow<4>(source, coords, s, x, v, count, out);
  }
}

// Floats the fill colour's two forms take (FillColour): its C values rounded up to whole
// vectors of 4, then as many for its pixel.
inline int64_t FillFloats(int channels) { return 2 * ((channels + 3) / 4 * 4); }

// The fill colour as floats for the blend (`fill`, whole vectors of 4, zeros after C) and as a
// pixel of Y's dtype, stored as the blend stores a value (uint8: rounded half to even and
// saturated), in FillFloats(C) floats from `fill`; returns the pixel.
inline HWY_NOINLINE uint8_t* MakeFill(const InterleavedProblem& pb, float* fill) {
  const int padded = (pb.c + 3) / 4 * 4;
  uint8_t* pixel = reinterpret_cast<uint8_t*>(fill + padded);
  for (int c = 0; c < padded; ++c) fill[c] = c < pb.c ? static_cast<float>(pb.fill[c]) : 0.0f;
  if (pb.dtype == DType::kUint8) {
    for (int c = 0; c < padded; c += 4) StorePixel<4>(LoadPixel<4>(fill + c), pixel + c);
  } else {
    std::memcpy(pixel, fill, sizeof(float) * pb.c);
  }
  return pixel;
}

// What every row segment of one call shares: X's and Y's layout, the plans' axes, the
// fixed-point blend's setup and the fill colour. A source whose coordinates follow the pixels'
// order alone (kFlatRows: a grid) walks a batch item's rows as one line of pixels, so that
// narrow outputs (a grid of points x 4 or x 1) still fill whole tiles, as many pixels as an
// NCHW tile (the other sources' column tiles hold at most kAffineTile: the affine source keeps
// that many columns' terms).
template <Mode M, class Source>
struct CallRows {
  static constexpr int kTile = (Source::kFlatRows || TilePlan<M, 2>::kPixels < kAffineTile)
                                   ? TilePlan<M, 2>::kPixels
                                   : kAffineTile;

  explicit CallRows(const InterleavedProblem& problem)
      : pb(problem),
        width(Source::kFlatRows ? pb.rows * pb.axes.out_w : pb.axes.out_w),
        lines(Source::kFlatRows ? 1 : pb.rows),
        elem(DTypeSize(pb.dtype)),
        row(pb.axes.in_w * pb.c),
        axes{{pb.axes.in_h, pb.axes.in_w}, {row, pb.c}, pb.axes.align},
        in_count(static_cast<int64_t>(pb.axes.in_h) * row),
        out_count(pb.rows * pb.axes.out_w * pb.c),
        // uint8 bilinear of 1 to 4 channels; the affine warp's float32 stepped positions only for X
        // sides up to kFixedMaxSide.
        fixed(M == Mode::kLinear && pb.dtype == DType::kUint8 && pb.c <= 4 &&
              (!Source::kKnowsInterior ||
               (pb.axes.in_w <= kFixedMaxSide && pb.axes.in_h <= kFixedMaxSide))),
        fs(MakeFixedSetup(pb, row)) {
    if (pb.fill == nullptr) return;
    fill_store.reset(new (std::nothrow) float[static_cast<size_t>(FillFloats(pb.c))]);
    if (fill_store) {
      fill = fill_store.get();
      fill_pixel = MakeFill(pb, fill_store.get());
    }
  }

  // Whether the call can run: false when the fill colour found no memory.
  bool Ready() const { return pb.fill == nullptr || fill != nullptr; }

  const InterleavedProblem& pb;
  const int64_t width, lines;  // pixels per line of output and lines per batch item
  const size_t elem;           // bytes per value of X and Y
  const int32_t row;           // values per row of X
  const PlanAxes<2> axes;
  const int64_t in_count, out_count;    // values per batch item of X and of Y
  const bool fixed;                     // the fixed-point blend, where windows lie inside X
  const FixedSetup fs;                  // (read in bilinear only)
  std::unique_ptr<float[]> fill_store;  // MakeFill's two forms of the fill colour
  const float* fill = nullptr;          // the fill colour as the blends add it, or null
  const uint8_t* fill_pixel = nullptr;  // the fill colour as a pixel of Y's dtype, or null
};

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_DRIVERS_PIXEL_ROWS_INL_H_
