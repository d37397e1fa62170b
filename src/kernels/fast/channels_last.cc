// Highway kernels for channels-last (NHWC) images, uint8 and float32 with 1 to 4 channels:
// 2-D GridSample from a float32 grid and the fused affine warp. Per vector of output pixels a
// plan (tap offsets and weights) is computed in registers and parked in a small stack block;
// then each output pixel is blended with its channels as the lanes of one vector, so that a
// tap is one contiguous load of all the channels of an input pixel.
//
// Two blends:
// - Exact (float32 data; nearest and cubic; uint8 bilinear near the image's edges): equal to
//   the reference on X transposed to NCHW, bit for bit (the sign of zero included). The taps,
//   the weights w_x * w_y, the summation order from 0 and the final rounding are the
//   reference's, and padding applies per tap as in the reference (weights are never folded
//   onto shared pixels). A tap that zeros padding drops reads a zero pixel instead, which the
//   sum then adds as +-0, as the reference's skipping does.
// - Fixed point (uint8 bilinear, vectors whose 2x2 windows all lie inside X): weights
//   rounded to units of 2^-14 and one integer dot product per column of taps, about three
//   times fewer instructions than the float blend. Within 1 level of the reference, always:
//   the weights are off by at most 4 * 2^-15 in total (0.03 levels); the affine warp's
//   positions, stepped in float32 (X sides up to 4096), differ from the reference's by less
//   than 2^-9 pixels (0.5 levels at a 0-to-255 edge); and two values less than 1 apart round
//   at most 1 apart. GridSampleChannelsLast uses the reference's positions themselves.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "fast/fast.h"

#ifndef GRIDSAMPLE_FAST_CHANNELS_LAST_PROBLEM_
#define GRIDSAMPLE_FAST_CHANNELS_LAST_PROBLEM_
namespace gridsample {
namespace fast {
// A channels-last problem as the kernels see it (sizes checked to fit int32 offsets).
struct ChannelsLastProblem {
  int64_t n, out_h, out_w;
  int32_t in_h, in_w;
  const void* x;
  void* y;
  const float* grid;   // (N, Ho, Wo, 2), or null for the affine warp
  const void* theta;   // (N, 2, 3) float32 or float64, when grid is null
  bool theta_f64;
  bool align;
  Padding padding;
};
}  // namespace fast
}  // namespace gridsample
#endif  // GRIDSAMPLE_FAST_CHANNELS_LAST_PROBLEM_

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "fast/channels_last.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "fast/affine-inl.h"
#include "fast/plan-inl.h"
#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// Per-call constants of the planning.
struct ClGeometry {
  int32_t w, h;  // X's width and height
  int32_t c;     // channels
  int32_t row;   // w * c: elements per row of X
  bool align;
  Padding padding;
  bool reduce;  // reflection: reduce normalised coordinates modulo 4 here (float32 sources)
};

// The plan of one vector of output pixels, parked between plan and blend; the blend reads
// each pixel's scalars with broadcast loads.
enum class PlanKind { kInterior, kEdge, kEmpty };

template <Mode M>
struct ClPlan {
  static constexpr int kT = kTaps<M>;
  static constexpr int kT2 = kT * kT;
  // kInterior: every tap of every lane inside X, `base` and fixed steps address them.
  // kEdge: `offset` per tap. kEmpty: zeros padding drops every tap of every lane (output 0).
  PlanKind kind;
  HWY_ALIGN int32_t base[kMaxLanes];         // kInterior: offset of the first tap
  HWY_ALIGN int32_t offset[kT2][kMaxLanes];  // kEdge: offset of each tap, -1 reads zeros
  HWY_ALIGN float weight[kT2][kMaxLanes];    // w_x * w_y per tap, y-major (not for nearest)
};

// Min and max for clamping. On WASM, f32x4.min/max also order NaN and -0, which costs V8
// several instructions each; pmin/pmax (b < a ? b : a) are one. A NaN in `a` gives NaN or
// `b`, by target: callers treat both alike (a lane outside X).
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

// Pixel coordinate of the finite normalised coordinates g, with the reference's operations:
// reduce modulo 4 (reflection), denormalise, clamp far-away points.
HWY_INLINE VF Denormalise(DF d, VF g, int32_t size, bool align, bool reduce) {
  const VF one = hn::Set(d, 1.0f);
  const VF half = hn::Set(d, 0.5f);
  if (reduce) {  // the reference's fmod(g, 4) for |g| > 3; exact
    const VF q = hn::Trunc(hn::Mul(g, hn::Set(d, 0.25f)));
    const VF reduced = hn::Sub(g, hn::Mul(hn::Set(d, 4.0f), q));
    g = hn::IfThenElse(hn::Gt(hn::Abs(g), hn::Set(d, 3.0f)), reduced, g);
  }
  VF x;
  if (align) {  // ((g + 1) / 2) * (S - 1); 0 for S = 1 as g is finite
    x = hn::Mul(hn::Mul(hn::Add(g, one), half), hn::Set(d, static_cast<float>(size - 1)));
  } else {  // ((g + 1) * S - 1) / 2
    x = hn::Mul(hn::Sub(hn::Mul(hn::Add(g, one), hn::Set(d, static_cast<float>(size))), one),
                half);
  }
  // Beyond 2^23 pixels out every float is an integer and all taps pad alike (reference).
  constexpr float kFar = 8388608.0f;
  return MinNoNaN(MaxNoNaN(x, hn::Set(d, -kFar)), hn::Set(d, static_cast<float>(size) + kFar));
}

// Padded tap index, -1 where zeros padding drops the tap.
HWY_INLINE VI ClPad(DF d, VI i, int32_t size, bool align, Padding padding) {
  const DI di;
  if (padding == Padding::kZeros) {
    const auto inside = hn::And(hn::Gt(i, hn::Set(di, -1)), hn::Lt(i, hn::Set(di, size)));
    return hn::IfThenElse(inside, i, hn::Set(di, -1));
  }
  if (padding == Padding::kBorder) return hn::Min(hn::Max(i, hn::Zero(di)), hn::Set(di, size - 1));
  return Reflect(d, i, size, align);
}

// Plans the vector of pixels whose normalised coordinates are gx[0..lanes), gy[0..lanes).
template <Mode M>
HWY_NOINLINE void ClPlanVector(const ClGeometry& geo, const float* gx_in, const float* gy_in,
                               ClPlan<M>* plan) {
  const DF d;
  const DI di;
  constexpr int kT = kTaps<M>;
  VF gx = hn::Load(d, gx_in);
  VF gy = hn::Load(d, gy_in);
  // g * 0 is 0 for finite g and NaN otherwise: one test covers both coordinates.
  const VF probe = hn::Add(hn::Mul(gx, hn::Zero(d)), hn::Mul(gy, hn::Zero(d)));
  const auto finite = hn::Eq(probe, probe);
  gx = hn::IfThenElseZero(finite, gx);
  gy = hn::IfThenElseZero(finite, gy);
  VI fx, fy;
  VF wx[kT], wy[kT];
  AxisTaps<M>(d, Denormalise(d, gx, geo.w, geo.align, geo.reduce), &fx, wx);
  AxisTaps<M>(d, Denormalise(d, gy, geo.h, geo.align, geo.reduce), &fy, wy);
  const auto finite_i = hn::RebindMask(di, finite);
  if (geo.padding == Padding::kZeros) {
    // Every tap of every lane outside X (or the lane not finite): the outputs are 0.
    const auto out_x = hn::Or(hn::Lt(fx, hn::Set(di, 1 - kT)), hn::Gt(fx, hn::Set(di, geo.w - 1)));
    const auto out_y = hn::Or(hn::Lt(fy, hn::Set(di, 1 - kT)), hn::Gt(fy, hn::Set(di, geo.h - 1)));
    if (hn::AllTrue(di, hn::Or(hn::Or(out_x, out_y), hn::Not(finite_i)))) {
      plan->kind = PlanKind::kEmpty;
      return;
    }
  }
  if (M != Mode::kNearest) {
    // The reference's weight of tap (j, k): (1 * w_x[k]) * w_y[j].
    for (int j = 0; j < kT; ++j) {
      for (int k = 0; k < kT; ++k) hn::Store(hn::Mul(wx[k], wy[j]), d, plan->weight[j * kT + k]);
    }
  }
  auto inside = hn::And(hn::Gt(fx, hn::Set(di, -1)), hn::Lt(fx, hn::Set(di, geo.w - kT + 1)));
  inside = hn::And(inside, hn::And(hn::Gt(fy, hn::Set(di, -1)),
                                   hn::Lt(fy, hn::Set(di, geo.h - kT + 1))));
  inside = hn::And(inside, finite_i);
  if (M != Mode::kNearest && geo.c == 3) {
    // Three channels are read as four lanes: the window must not end on X's last pixel.
    inside = hn::And(inside, hn::Or(hn::Lt(fx, hn::Set(di, geo.w - kT)),
                                    hn::Lt(fy, hn::Set(di, geo.h - kT))));
  }
  const VI c = hn::Set(di, geo.c);
  const VI row = hn::Set(di, geo.row);
  if (hn::AllTrue(di, inside)) {
    plan->kind = PlanKind::kInterior;
    hn::Store(hn::Add(hn::Mul(fy, row), hn::Mul(fx, c)), di, plan->base);
    return;
  }
  plan->kind = PlanKind::kEdge;
  VI ix[kT], iy[kT];
  for (int k = 0; k < kT; ++k) {
    ix[k] = ClPad(d, hn::Add(fx, hn::Set(di, k)), geo.w, geo.align, geo.padding);
    iy[k] = ClPad(d, hn::Add(fy, hn::Set(di, k)), geo.h, geo.align, geo.padding);
  }
  const VI none = hn::Set(di, -1);
  const auto not_finite = hn::Not(finite_i);
  for (int j = 0; j < kT; ++j) {
    const VI r = hn::Mul(iy[j], row);
    const auto drop_row = hn::Or(hn::Lt(iy[j], hn::Zero(di)), not_finite);
    for (int k = 0; k < kT; ++k) {
      const auto drop = hn::Or(drop_row, hn::Lt(ix[k], hn::Zero(di)));
      hn::Store(hn::IfThenElse(drop, none, hn::Add(r, hn::Mul(ix[k], c))), di,
                plan->offset[j * kT + k]);
    }
  }
}

// --- one pixel: its channels as the lanes of one float vector -------------------------------

// Three channels travel as four lanes: the fourth is junk (the next pixel's first channel),
// never stored except where the next pixel is overwritten later.
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

template <int C>
HWY_INLINE VP<C> LoadPixel(const uint8_t* p) {
  const hn::FixedTag<uint8_t, kPixelLanes<C>> d8;
  const hn::FixedTag<uint32_t, kPixelLanes<C>> d32;
  return BytesToFloat(d32, hn::PromoteTo(d32, hn::LoadU(d8, p)));
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
template <int C>
HWY_INLINE void StorePixel(VP<C> v, uint8_t* out) {
  // The reference's integer store: round half to even, then saturate to [0, 255]; the same
  // as saturating first. Adding 2^23 to a float in [0, 255] rounds it to an integer (half to
  // even) in the low mantissa bits: the byte, without a float-to-int conversion (which
  // Highway and V8 guard against overflow at several instructions' cost).
  const PixelTag<C> dp;
  const hn::FixedTag<uint32_t, kPixelLanes<C>> d32;
  const hn::FixedTag<uint8_t, kPixelLanes<C>> d8;
  v = MinNoNaN(MaxNoNaN(v, hn::Zero(dp)), hn::Set(dp, 255.0f));
  const auto bits = hn::BitCast(d32, hn::Add(v, hn::Set(dp, 8388608.0f)));
  hn::StoreU(hn::U8FromU32(hn::Sub(bits, hn::Set(d32, 0x4B000000u))), d8, out);
}
// Exactly C elements, for the last pixel of a row (nothing after it is written later).
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

// X of one batch element as the blend sees it.
template <typename T>
struct ClImage {
  const T* x;
  const T* zeros;  // a zero pixel (4 elements) for taps that zeros padding drops
  const T* tail;   // C = 3: X's last pixel and one zero, read instead of X's last pixel
  int32_t row;     // elements per row
  int32_t last;    // offset of X's last pixel
};

// The same, untyped, as the driver (one function for every dtype) holds it.
struct ClImageBytes {
  const void* x;
  const void* zeros;
  const void* tail;
  int32_t row, last;
};

// Pixels [0, valid) of a vector whose taps all lie inside X.
template <typename T, int C, Mode M>
HWY_INLINE void BlendInterior(const ClPlan<M>& plan, const ClImage<T>& im, int valid,
                              bool exact_last, T* out) {
  const PixelTag<C> dp;
  constexpr int kT = kTaps<M>;
  for (int p = 0; p < valid; ++p) {
    const T* src = im.x + plan.base[p];
    T* o = out + p * C;
    if (M == Mode::kNearest) {
      CopyPixel<C>(src, o);
      continue;
    }
    VP<C> acc = hn::Zero(dp);
    for (int j = 0; j < kT; ++j, src += im.row) {
      for (int k = 0; k < kT; k += 2) {
        VP<C> a, b;
        LoadPair<C>(src + k * C, &a, &b);
        acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[j * kT + k][p]), a));
        acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[j * kT + k + 1][p]), b));
      }
    }
    if (C == 3 && exact_last && p + 1 == valid) {
      StorePixelExact<C>(acc, o);
    } else {
      StorePixel<C>(acc, o);
    }
  }
}

// Pixels [0, valid) of a vector with padded taps: one load per tap.
template <typename T, int C, Mode M>
HWY_INLINE void BlendEdge(const ClPlan<M>& plan, const ClImage<T>& im, int valid,
                          bool exact_last, T* out) {
  const PixelTag<C> dp;
  constexpr int kT2 = ClPlan<M>::kT2;
  for (int p = 0; p < valid; ++p) {
    T* o = out + p * C;
    if (M == Mode::kNearest) {
      const int32_t off = plan.offset[0][p];
      CopyPixel<C>(off < 0 ? im.zeros : im.x + off, o);
      continue;
    }
    VP<C> acc = hn::Zero(dp);
    for (int t = 0; t < kT2; ++t) {
      const int32_t off = plan.offset[t][p];
      const T* src = off < 0 ? im.zeros : im.x + off;
      if (C == 3 && off == im.last) src = im.tail;
      acc = hn::Add(acc, hn::Mul(hn::Set(dp, plan.weight[t][p]), LoadPixel<C>(src)));
    }
    if (C == 3 && exact_last && p + 1 == valid) {
      StorePixelExact<C>(acc, o);
    } else {
      StorePixel<C>(acc, o);
    }
  }
}

// Plans and blends one vector of pixels exactly, from normalised coordinates.
template <typename T, int C, Mode M>
HWY_NOINLINE void ExactVector(const ClGeometry& geo, const ClImageBytes& bytes, const float* gx,
                              const float* gy, int valid, bool exact_last, void* out_bytes) {
  const ClImage<T> im{static_cast<const T*>(bytes.x), static_cast<const T*>(bytes.zeros),
                      static_cast<const T*>(bytes.tail), bytes.row, bytes.last};
  T* out = static_cast<T*>(out_bytes);
  ClPlan<M> plan;
  ClPlanVector<M>(geo, gx, gy, &plan);
  switch (plan.kind) {
    case PlanKind::kInterior: BlendInterior<T, C, M>(plan, im, valid, exact_last, out); break;
    case PlanKind::kEdge: BlendEdge<T, C, M>(plan, im, valid, exact_last, out); break;
    case PlanKind::kEmpty: std::memset(out, 0, sizeof(T) * C * valid); break;  // +0, as Store(0)
  }
}

// --- uint8 bilinear in fixed point --------------------------------------------------------

// Largest X side for the fixed-point blend of the affine warp, whose positions come from
// float32 increments: their error stays below 2^-10 pixels (with the reference's own below
// 2^-11, at most 0.5 levels at the steepest 0-to-255 edge).
constexpr int32_t kFixedMaxSide = 4096;

struct FixedPlan {
  HWY_ALIGN int32_t base[kMaxLanes];   // offset of the top-left tap
  HWY_ALIGN int32_t left[kMaxLanes];   // weights of the left taps as int16 (top, bottom)
  HWY_ALIGN int32_t right[kMaxLanes];  // weights of the right taps
};

// The vectors the fixed-point plan uses, made once per row segment. On WASM they are derived
// from an opaque zero: clang keeps vector constants as v128.const at every use, and V8
// materialises each with three instructions every time, in the loop; values computed at
// run time stay in registers instead.
struct FixedConsts {
  VF zero, max_x, max_y, max_x3, max_y3;  // window limits (max_*3: C = 3's last-pixel rule)
  VF k128, bias23, magic;                  // 128, 2^23, 1.5 * 2^23
  VI magic_bits, low16, row, channels;     // 1.5 * 2^23's bits, 0xFFFF, X's strides
};

HWY_INLINE FixedConsts MakeFixedConsts(const ClGeometry& geo, VI opaque_zero) {
  const DF d;
  const DI di;
  const auto f = [&](float v) { return hn::BitCast(d, hn::Or(hn::BitCast(di, hn::Set(d, v)), opaque_zero)); };
  const auto i = [&](int32_t v) { return hn::Or(hn::Set(di, v), opaque_zero); };
  // Aggregate initialisation: a default-constructed vector member would need the struct's
  // implicit constructor, which GCC does not compile for the target (NEON: "target specific
  // option mismatch").
  return FixedConsts{f(0.0f),
                     f(static_cast<float>(geo.w - 1)),
                     f(static_cast<float>(geo.h - 1)),
                     f(static_cast<float>(geo.w - 2)),
                     f(static_cast<float>(geo.h - 2)),
                     f(128.0f),
                     f(8388608.0f),
                     f(12582912.0f),
                     i(0x4B400000),
                     i(0xFFFF),
                     i(geo.row),
                     i(geo.c)};
}

// Plans pixels at coordinates x, y (in pixels) for the fixed-point blend; false, planning
// nothing, unless every lane's 2x2 window lies inside X (NaN lies nowhere).
// kCheck = false: the caller knows the windows lie inside.
template <int C, bool kCheck = true>
HWY_INLINE bool FixedPlanVector(const FixedConsts& k, VF x, VF y, FixedPlan* plan) {
  const DF d;
  const DI di;
  if (kCheck) {
    auto inside = hn::And(hn::Ge(x, k.zero), hn::Lt(x, k.max_x));
    inside = hn::And(inside, hn::And(hn::Ge(y, k.zero), hn::Lt(y, k.max_y)));
    if (C == 3) {  // three channels are read as eight bytes: not ending on X's last pixel
      inside = hn::And(inside, hn::Or(hn::Lt(x, k.max_x3), hn::Lt(y, k.max_y3)));
    }
    if (!hn::AllTrue(d, inside)) return false;
  }
  const VF fx = hn::Floor(x);
  const VF fy = hn::Floor(y);
  // The integer held by a float in [0, 2^22): its bits relative to 1.5 * 2^23's (no
  // float-to-int conversion, which Highway and V8 guard against overflow at some cost).
  const VI ix = hn::Sub(hn::BitCast(di, hn::Add(fx, k.magic)), k.magic_bits);
  const VI iy = hn::Sub(hn::BitCast(di, hn::Add(fy, k.magic)), k.magic_bits);
  hn::Store(hn::Add(hn::Mul(iy, k.row), hn::Mul(ix, k.channels)), di, plan->base);
  // Tap weights in units of 2^-14: the fractions in units of 2^-7, multiplied; a float in
  // [0, 2^14] plus 2^23 has itself rounded (half to even) in its low bits, the high 16 of
  // which the packing drops: pair = (w_top & 0xFFFF) | (w_bottom << 16).
  const VF ax1 = hn::Mul(hn::Sub(x, fx), k.k128);
  const VF ay1 = hn::Mul(hn::Sub(y, fy), k.k128);
  const VF ax0 = hn::Sub(k.k128, ax1);
  const VF ay0 = hn::Sub(k.k128, ay1);
  const auto pair = [&](VF top, VF bottom) {
    const VI t = hn::BitCast(di, hn::Add(top, k.bias23));
    const VI b = hn::BitCast(di, hn::Add(bottom, k.bias23));
    return hn::Or(hn::And(t, k.low16), hn::ShiftLeft<16>(b));
  };
  hn::Store(pair(hn::Mul(ax0, ay0), hn::Mul(ax0, ay1)), di, plan->left);
  hn::Store(pair(hn::Mul(ax1, ay0), hn::Mul(ax1, ay1)), di, plan->right);
  return true;
}

// Byte indices turning [top pair | bottom pair] (8 bytes each, a pair being two adjacent
// pixels' C channels) into int16 lanes with each channel's top and bottom tap side by side,
// for the left and the right pixel (0x80: a zero byte):
//   left:  [c0.top c0.bottom c1.top c1.bottom ... ]
// so that an int16 dot product with (w_top, w_bottom) pairs sums one column per channel.
template <int C>
HWY_INLINE void FixedIndices(uint8_t left[16], uint8_t right[16]) {
  for (int lane = 0; lane < 8; ++lane) {
    const int channel = lane / 2, row = lane % 2;
    const bool used = channel < C;
    left[2 * lane] = used ? static_cast<uint8_t>(8 * row + channel) : uint8_t{0x80};
    right[2 * lane] = used ? static_cast<uint8_t>(8 * row + C + channel) : uint8_t{0x80};
    left[2 * lane + 1] = right[2 * lane + 1] = 0x80;
  }
}

// bytes[idx[i]], 0 where idx[i] >= 0x80. Highway 1.0 does this lane by lane on WASM (for a
// V8 bug fixed in 2021); every engine with SIMD128 today runs i8x16.swizzle correctly.
HWY_INLINE hn::Vec<hn::Full128<uint8_t>> LookupBytesOr0(hn::Vec<hn::Full128<uint8_t>> bytes,
                                                        hn::Vec<hn::Full128<uint8_t>> idx) {
#if HWY_TARGET == HWY_WASM
  return hn::Vec<hn::Full128<uint8_t>>{wasm_i8x16_swizzle(bytes.raw, idx.raw)};
#else
  return hn::TableLookupBytesOr0(bytes, idx);
#endif
}

// The 2C bytes of two adjacent pixels at the start of an 8-byte vector (C = 3 reads two
// bytes more: the plan keeps those inside X; C <= 2 fills the rest with copies).
template <int C>
HWY_INLINE hn::Vec<hn::FixedTag<uint8_t, 8>> LoadPairBytes(const uint8_t* p) {
  const hn::FixedTag<uint8_t, 8> d8;
  if constexpr (C >= 3) {
    return hn::LoadU(d8, p);
  } else {
    uint32_t bits = 0;
    std::memcpy(&bits, p, 2 * C);
    return hn::BitCast(d8, hn::Set(hn::FixedTag<uint32_t, 2>(), bits));
  }
}

#if HWY_TARGET == HWY_WASM
// FixedBlend for four RGBA pixels, in wasm_simd128.h terms. Interleaving the bytes of the two
// rows puts each channel's top and bottom tap side by side without a table (V8: punpcklbw):
//   [t0 b0 t1 b1 .. t7 b7]: left pixel's channels in the low half, right pixel's in the high
// and the weights come as single splat loads; four results leave in one 16-byte store.
HWY_INLINE v128_t FixedPixelRgba(const FixedPlan& plan, int p, const uint8_t* x, int32_t row,
                                 v128_t bias, v128_t unbias) {
  const uint8_t* src = x + plan.base[p];
  const v128_t tb = wasm_i8x16_shuffle(wasm_v128_load64_zero(src), wasm_v128_load64_zero(src + row),
                                       0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t left = wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(tb),
                                           wasm_v128_load32_splat(&plan.left[p]));
  const v128_t right = wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(tb),
                                            wasm_v128_load32_splat(&plan.right[p]));
  const v128_t sum = wasm_i32x4_add(left, right);
  return wasm_i32x4_add(wasm_f32x4_add(wasm_f32x4_convert_i32x4(sum), bias), unbias);
}

HWY_INLINE void FixedBlend4Rgba(const FixedPlan& plan, const uint8_t* x, int32_t row,
                                uint8_t* out) {
  const v128_t bias = wasm_f32x4_splat(137438953472.0f);  // 2^37, see FixedBlend
  const v128_t unbias = wasm_i32x4_splat(-0x52000000);
  const v128_t p0 = FixedPixelRgba(plan, 0, x, row, bias, unbias);
  const v128_t p1 = FixedPixelRgba(plan, 1, x, row, bias, unbias);
  const v128_t p2 = FixedPixelRgba(plan, 2, x, row, bias, unbias);
  const v128_t p3 = FixedPixelRgba(plan, 3, x, row, bias, unbias);
  // Lanes hold 0..255: the saturating narrowings are plain packs.
  wasm_v128_store(out, wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(p0, p1),
                                               wasm_i16x8_narrow_i32x4(p2, p3)));
}
#endif  // HWY_TARGET == HWY_WASM

// Pixels [0, valid) of a fixed-point plan: per pixel two int16 dot products (left, right
// column) give each channel's sum in units of 2^-14, rounded half to even to a byte.
template <int C>
HWY_INLINE void FixedBlend(const FixedPlan& plan, const uint8_t* x, int32_t row,
                           hn::Vec<hn::Full128<uint8_t>> idx_left,
                           hn::Vec<hn::Full128<uint8_t>> idx_right, int valid, bool exact_last,
                           uint8_t* out) {
#if HWY_TARGET == HWY_WASM
  if constexpr (C == 4) {
    if (valid == 4) {
      FixedBlend4Rgba(plan, x, row, out);
      return;
    }
  }
#endif
  const hn::Full128<uint8_t> d8;
  const hn::Full128<int16_t> d16;
  const hn::Full128<int32_t> d32;
  const hn::Full128<uint32_t> du32;
  const hn::Full128<float> df;
  for (int p = 0; p < valid; ++p) {
    const uint8_t* src = x + plan.base[p];
    const auto v = hn::Combine(d8, LoadPairBytes<C>(src + row), LoadPairBytes<C>(src));
    const auto left = hn::BitCast(d16, LookupBytesOr0(v, idx_left));
    const auto right = hn::BitCast(d16, LookupBytesOr0(v, idx_right));
    auto odd = hn::Zero(d32);
    auto sum = hn::ReorderWidenMulAccumulate(d32, left, hn::BitCast(d16, hn::Set(d32, plan.left[p])),
                                             hn::Zero(d32), odd);
    sum = hn::ReorderWidenMulAccumulate(d32, right, hn::BitCast(d16, hn::Set(d32, plan.right[p])),
                                        sum, odd);
    sum = hn::RearrangeToOddPlusEven(sum, odd);
    // sum / 2^14 rounded half to even lands in the low mantissa bits of 2^37 + sum (sum is
    // below 2^24, so its conversion is exact; the result is at most 255).
    const auto bits = hn::Sub(hn::BitCast(du32, hn::Add(hn::ConvertTo(df, sum),
                                                        hn::Set(df, 137438953472.0f))),
                              hn::Set(du32, 0x52000000u));
    const auto bytes = hn::U8FromU32(bits);  // 4 bytes, channels beyond C are 0
    uint8_t* o = out + p * C;
    if constexpr (C == 4) {
      hn::StoreU(bytes, hn::FixedTag<uint8_t, 4>(), o);
    } else if constexpr (C == 3) {
      if (exact_last && p + 1 == valid) {
        HWY_ALIGN uint8_t buf[4];
        hn::StoreU(bytes, hn::FixedTag<uint8_t, 4>(), buf);
        std::memcpy(o, buf, 3);
      } else {
        hn::StoreU(bytes, hn::FixedTag<uint8_t, 4>(), o);  // the 4th byte is overwritten next
      }
    } else {
      HWY_ALIGN uint8_t buf[4];
      hn::StoreU(bytes, hn::FixedTag<uint8_t, 4>(), buf);
      std::memcpy(o, buf, C);
    }
  }
}

// The fixed-point loop over vectors [v, count) of one row segment of the affine warp, from
// float32 pixel positions x_j = row_x + j * dx (y alike); returns where a vector is not
// interior (count when none). A loop of its own: small enough for V8 to keep in registers.
template <int C>
HWY_NOINLINE int FixedAffineRow(const ClGeometry& geo, const uint8_t* x, int64_t j0, int v,
                                int count, bool row_end, double row_x, double row_y, double dx,
                                double dy, VF lanes_dx, VF lanes_dy, VI opaque_zero,
                                hn::Vec<hn::Full128<uint8_t>> idx_left,
                                hn::Vec<hn::Full128<uint8_t>> idx_right, uint8_t* out) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const FixedConsts k = MakeFixedConsts(geo, opaque_zero);
  // The vectors [u_begin, u_end) whose windows certainly lie inside X: the pixels j where
  // x_j and y_j stay 1/64 pixel inside [0, S - 1] (far more than the float32 error of the
  // positions), worked out in double; they skip the per-vector test. (Not for C = 3, whose
  // test has one more condition.)
  int u_begin = count, u_end = count;
  if (C != 3) {
    constexpr double kMargin = 1.0 / 64;
    double j_lo = -HUGE_VAL, j_hi = HUGE_VAL;
    const auto clip = [&](double p0, double slope, double hi) {
      if (hi - kMargin < kMargin) {  // S = 1: no position is 1/64 inside (fuzz regression)
        j_lo = HUGE_VAL;
        return;
      }
      if (slope == 0.0) {
        if (!(p0 >= kMargin && p0 <= hi - kMargin)) j_lo = HUGE_VAL;
        return;
      }
      double a = (kMargin - p0) / slope, b = (hi - kMargin - p0) / slope;
      if (!(a == a && b == b)) {  // a NaN (non-finite theta): no pixel is certain
        j_lo = HUGE_VAL;
        return;
      }
      if (a > b) std::swap(a, b);
      j_lo = a > j_lo ? a : j_lo;
      j_hi = b < j_hi ? b : j_hi;
    };
    clip(row_x, dx, geo.w - 1);
    clip(row_y, dy, geo.h - 1);
    // Relative to this segment, limited to [v, count - 1] (NaN compares false: empty).
    double lo = std::ceil(j_lo) - static_cast<double>(j0);
    double hi = std::floor(j_hi) - static_cast<double>(j0);
    lo = lo > v ? lo : v;
    hi = hi < count - 1 ? hi : count - 1;
    if (lo <= hi) {
      const int ilo = static_cast<int>(lo), ihi = static_cast<int>(hi);
      u_begin = v + (ilo - v + lanes - 1) / lanes * lanes;
      u_end = v + (ihi + 1 - v) / lanes * lanes;
      if (u_end < u_begin) u_end = u_begin;
    }
  }
  // Positions of each vector's first pixel, stepped in double (the rounding of these sums
  // stays below 2^-40 pixels over a row).
  double vx = row_x + static_cast<double>(j0 + v) * dx, vy = row_y + static_cast<double>(j0 + v) * dy;
  const double step_x = lanes * dx, step_y = lanes * dy;
  const auto one = [&](auto check) {
    const VF px = hn::Add(hn::Set(d, static_cast<float>(vx)), lanes_dx);
    const VF py = hn::Add(hn::Set(d, static_cast<float>(vy)), lanes_dy);
    FixedPlan plan;
    if (!FixedPlanVector<C, decltype(check)::value>(k, px, py, &plan)) return false;
    const int valid = count - v < lanes ? count - v : lanes;
    FixedBlend<C>(plan, x, geo.row, idx_left, idx_right, valid, row_end && v + valid == count,
                  out + v * C);
    return true;
  };
  for (; v < u_begin; v += lanes, vx += step_x, vy += step_y) {
    if (!one(std::true_type())) return v;
  }
  for (; v < u_end; v += lanes, vx += step_x, vy += step_y) one(std::false_type());
  for (; v < count; v += lanes, vx += step_x, vy += step_y) {
    if (!one(std::true_type())) return v;
  }
  return count;
}

// As FixedAffineRow, from normalised coordinates gx, gy (GridSampleChannelsLast): the
// reference's own pixel positions.
template <int C>
HWY_NOINLINE int FixedGridRow(const ClGeometry& geo, const uint8_t* x, int v, int count,
                              bool row_end, const float* gx, const float* gy, VI opaque_zero,
                              hn::Vec<hn::Full128<uint8_t>> idx_left,
                              hn::Vec<hn::Full128<uint8_t>> idx_right, uint8_t* out) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const FixedConsts k = MakeFixedConsts(geo, opaque_zero);
  for (; v < count; v += lanes) {
    const VF px = Denormalise(d, hn::Load(d, gx + v), geo.w, geo.align, geo.reduce);
    const VF py = Denormalise(d, hn::Load(d, gy + v), geo.h, geo.align, geo.reduce);
    FixedPlan plan;
    if (!FixedPlanVector<C>(k, px, py, &plan)) return v;
    const int valid = count - v < lanes ? count - v : lanes;
    FixedBlend<C>(plan, x, geo.row, idx_left, idx_right, valid, row_end && v + valid == count,
                  out + v * C);
  }
  return count;
}

// gx, gy [0, count) from one row of an interleaved (x, y) float32 grid.
HWY_NOINLINE void ClGridRow(const float* src, int count, float* gx, float* gy) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  int j = 0;
  for (; j + lanes <= count; j += lanes) {
    VF a, b;
    hn::LoadInterleaved2(d, src + 2 * j, a, b);
    hn::Store(a, d, gx + j);
    hn::Store(b, d, gy + j);
  }
  for (; j < count; ++j) {
    gx[j] = src[2 * j];
    gy[j] = src[2 * j + 1];
  }
}

// AffineGrid's base coordinate on an axis of `size` as slope * i + offset (exact in real
// numbers; reference::AffineBaseCoordinate is the rounded value).
struct BaseLine {
  double slope, offset;
};
BaseLine BaseLineOf(int64_t size, bool align) {
  if (size == 1) return {0.0, 0.0};
  if (align) return {2.0 / static_cast<double>(size - 1), -1.0};
  return {2.0 / static_cast<double>(size), static_cast<double>(1 - size) / static_cast<double>(size)};
}

// The kernels of one (dtype, channels, mode): the driver below is the same code for all.
struct ClKernels {
  using Exact = void (*)(const ClGeometry&, const ClImageBytes&, const float*, const float*, int,
                         bool, void*);
  using FixedAffine = int (*)(const ClGeometry&, const uint8_t*, int64_t, int, int, bool, double,
                              double, double, double, VF, VF, VI, hn::Vec<hn::Full128<uint8_t>>,
                              hn::Vec<hn::Full128<uint8_t>>, uint8_t*);
  using FixedGrid = int (*)(const ClGeometry&, const uint8_t*, int, int, bool, const float*,
                            const float*, VI, hn::Vec<hn::Full128<uint8_t>>,
                            hn::Vec<hn::Full128<uint8_t>>, uint8_t*);
  int channels;
  size_t elem_size;
  Exact exact;
  FixedAffine fixed_affine;  // uint8 bilinear only, else null
  FixedGrid fixed_grid;
  void (*fixed_indices)(uint8_t*, uint8_t*);
};

HWY_NOINLINE void ClDrive(const ChannelsLastProblem& pb, const ClKernels& k) {
  const DF d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  const bool affine = pb.grid == nullptr;
  const int c = k.channels;
  const size_t elem = k.elem_size;
  ClGeometry geo;
  geo.w = pb.in_w;
  geo.h = pb.in_h;
  geo.c = c;
  geo.row = pb.in_w * c;
  geo.align = pb.align;
  geo.padding = pb.padding;
  // A float64 theta's values are reduced in double, as the reference reduces float64 grids.
  geo.reduce = pb.padding == Padding::kReflection && !(affine && pb.theta_f64);
  const bool reflect = pb.padding == Padding::kReflection;
  const int64_t in_count = static_cast<int64_t>(pb.in_h) * pb.in_w * c;
  const int64_t out_count = pb.out_h * pb.out_w * c;

  // uint8 bilinear: the fixed-point blend where a vector's windows lie inside X; the affine
  // warp then plans from float32 positions moving linearly along the row.
  const bool fixed = k.fixed_affine != nullptr &&
                     (!affine || (pb.in_w <= kFixedMaxSide && pb.in_h <= kFixedMaxSide));
  HWY_ALIGN uint8_t idx[2][16] = {};
  if (fixed) k.fixed_indices(idx[0], idx[1]);
  const hn::Full128<uint8_t> d8;
  // XOR with a zero the compiler cannot see: a table of known constants becomes a constant
  // shuffle, which clang lowers to byte copies through memory and V8 rebuilds per pixel.
  const int32_t opaque = pb.padding == static_cast<Padding>(-1);  // 0, unknown to clang
  const VI opaque_zero = hn::Set(DI(), opaque);
  const auto opaque_bytes = hn::BitCast(d8, hn::Set(hn::Full128<int32_t>(), opaque));
  const auto idx_left = hn::Xor(hn::Load(d8, idx[0]), opaque_bytes);
  const auto idx_right = hn::Xor(hn::Load(d8, idx[1]), opaque_bytes);

  HWY_ALIGN uint8_t zeros[16] = {};  // a zero pixel of 4 elements of either dtype
  HWY_ALIGN uint8_t tail[16] = {};
  HWY_ALIGN float gx[kAffineTile + kMaxLanes] = {};
  HWY_ALIGN float gy[kAffineTile + kMaxLanes] = {};
  HWY_ALIGN double ax[kAffineTile + kMaxLanes];
  HWY_ALIGN double ay[kAffineTile + kMaxLanes];
  ClImageBytes im{nullptr, zeros, tail, geo.row, static_cast<int32_t>(in_count - c)};
  const BaseLine base_x = BaseLineOf(pb.out_w, pb.align);
  // Denormalisation as a line too: pixel = g * k + (S - 1) / 2, k = S / 2 or (S - 1) / 2.
  const double kx = pb.align ? 0.5 * (pb.in_w - 1) : 0.5 * pb.in_w;
  const double ky = pb.align ? 0.5 * (pb.in_h - 1) : 0.5 * pb.in_h;
  const double cx = 0.5 * (pb.in_w - 1), cy = 0.5 * (pb.in_h - 1);

  for (int64_t n = 0; n < pb.n; ++n) {
    const uint8_t* x_n = static_cast<const uint8_t*>(pb.x) + n * in_count * elem;
    im.x = x_n;
    if (c == 3) std::memcpy(tail, x_n + (in_count - 3) * elem, 3 * elem);
    uint8_t* y_n = static_cast<uint8_t*>(pb.y) + n * out_count * elem;
    double t[6] = {};
    if (affine) {
      for (int i = 0; i < 6; ++i) {
        t[i] = pb.theta_f64 ? static_cast<const double*>(pb.theta)[n * 6 + i]
                            : static_cast<double>(static_cast<const float*>(pb.theta)[n * 6 + i]);
      }
    }
    // Pixel positions along a row: x_j = x_0 + j * dx (the same for y).
    const double dx = t[0] * base_x.slope * kx, dy = t[3] * base_x.slope * ky;
    const VF iota = hn::Iota(d, 0.0f);
    const VF lanes_dx = hn::Mul(iota, hn::Set(d, static_cast<float>(dx)));
    const VF lanes_dy = hn::Mul(iota, hn::Set(d, static_cast<float>(dy)));
    // Column tiles outermost: the affine column terms are computed once per tile.
    for (int64_t j0 = 0; j0 < pb.out_w; j0 += kAffineTile) {
      const int count = static_cast<int>(pb.out_w - j0 < kAffineTile ? pb.out_w - j0 : kAffineTile);
      const int padded = (count + lanes - 1) / lanes * lanes;
      if (affine) {
        AffineColumnTerms(t[0], j0, count, padded, pb.out_w, pb.align, ax);
        AffineColumnTerms(t[3], j0, count, padded, pb.out_w, pb.align, ay);
      }
      const bool row_end = j0 + count == pb.out_w;
      for (int64_t i = 0; i < pb.out_h; ++i) {
        const double by = affine ? reference::AffineBaseCoordinate(i, pb.out_h, pb.align) : 0.0;
        const double tx[2] = {t[1] * by, t[2]};
        const double ty[2] = {t[4] * by, t[5]};
        const double row_x = (t[0] * base_x.offset + t[1] * by + t[2]) * kx + cx;
        const double row_y = (t[3] * base_x.offset + t[4] * by + t[5]) * ky + cy;
        if (!affine) ClGridRow(pb.grid + ((n * pb.out_h + i) * pb.out_w + j0) * 2, count, gx, gy);
        uint8_t* out = y_n + (i * pb.out_w + j0) * c * elem;
        for (int v = 0; v < count; v += lanes) {
          if (fixed) {
            v = affine ? k.fixed_affine(geo, x_n, j0, v, count, row_end, row_x, row_y, dx, dy,
                                        lanes_dx, lanes_dy, opaque_zero, idx_left, idx_right, out)
                       : k.fixed_grid(geo, x_n, v, count, row_end, gx, gy, opaque_zero, idx_left,
                                      idx_right, out);
            if (v >= count) break;
          }
          // Vector v takes the exact path.
          const int valid = count - v < lanes ? count - v : lanes;
          const bool exact_last = row_end && v + valid == count;
          uint8_t* out_v = out + v * c * elem;
          if (affine) {
            // AffineGrid's values for this vector of pixels (see affine-inl.h).
            HWY_ALIGN float vx[kMaxLanes], vy[kMaxLanes];
            if (pb.theta_f64) {
              hn::Store(AffineToFloatFromDouble(ax + v, tx, reflect), d, vx);
              hn::Store(AffineToFloatFromDouble(ay + v, ty, reflect), d, vy);
            } else {
              hn::Store(AffineToFloat<2>(ax + v, tx), d, vx);
              hn::Store(AffineToFloat<2>(ay + v, ty), d, vy);
            }
            k.exact(geo, im, vx, vy, valid, exact_last, out_v);
          } else {
            k.exact(geo, im, gx + v, gy + v, valid, exact_last, out_v);
          }
        }
      }
    }
  }
}

template <typename T, int C, Mode M>
ClKernels KernelsOf() {
  ClKernels k{C, sizeof(T), &ExactVector<T, C, M>, nullptr, nullptr, nullptr};
  if constexpr (std::is_same<T, uint8_t>::value && M == Mode::kLinear) {
    k.fixed_affine = &FixedAffineRow<C>;
    k.fixed_grid = &FixedGridRow<C>;
    k.fixed_indices = &FixedIndices<C>;
  }
  return k;
}

template <typename T, int C>
ClKernels PickMode(Mode mode) {
  switch (mode) {
    case Mode::kLinear: return KernelsOf<T, C, Mode::kLinear>();
    case Mode::kNearest: return KernelsOf<T, C, Mode::kNearest>();
    case Mode::kCubic: break;
  }
  return KernelsOf<T, C, Mode::kCubic>();
}

template <typename T>
ClKernels PickChannels(int channels, Mode mode) {
  switch (channels) {
    case 1: return PickMode<T, 1>(mode);
    case 2: return PickMode<T, 2>(mode);
    case 3: return PickMode<T, 3>(mode);
    default: break;
  }
  return PickMode<T, 4>(mode);
}

// Entry for one target (channels 1 to 4, checked by the caller).
bool ChannelsLastRun(const ChannelsLastProblem& pb, bool uint8, int channels, Mode mode) {
  const ClKernels k = uint8 ? PickChannels<uint8_t>(channels, mode)
                            : PickChannels<float>(channels, mode);
  ClDrive(pb, k);
  return true;
}

#else  // HWY_TARGET == HWY_SCALAR: the generic path serves

bool ChannelsLastRun(const ChannelsLastProblem&, bool, int, Mode) { return false; }

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(ChannelsLastRun);

namespace {

// The problem in the kernels' terms, or false when no kernel covers it: X uint8 or float32
// with 1 to 4 channels; offsets fit int32 and reflection works on exact float integers.
bool MakeProblem(const ChannelsLastGeometry& geo, const TensorView& x, const MutableTensorView& y,
                 const GridSampleOptions& options, ChannelsLastProblem* pb) {
  if (x.dtype != DType::kUint8 && x.dtype != DType::kFloat32) return false;
  if (geo.c < 1 || geo.c > 4) return false;
  constexpr int64_t kMaxSide = int64_t{1} << 21;
  if (geo.in_h >= kMaxSide || geo.in_w >= kMaxSide) return false;
  if (geo.in_h * geo.in_w * geo.c >= (int64_t{1} << 31)) return false;
  pb->n = geo.n;
  pb->out_h = geo.out_h;
  pb->out_w = geo.out_w;
  pb->in_h = static_cast<int32_t>(geo.in_h);
  pb->in_w = static_cast<int32_t>(geo.in_w);
  pb->x = x.data;
  pb->y = y.data;
  pb->grid = nullptr;
  pb->theta = nullptr;
  pb->theta_f64 = false;
  pb->align = options.align_corners;
  pb->padding = options.padding;
  return true;
}

bool Run(const ChannelsLastProblem& pb, const ChannelsLastGeometry& geo, DType dtype,
         Mode mode) {
  if (geo.n * geo.out_h * geo.out_w * geo.c == 0) return true;  // nothing to write
  return GRIDSAMPLE_DISPATCH(ChannelsLastRun)(pb, dtype == DType::kUint8,
                                                 static_cast<int>(geo.c), mode);
}

}  // namespace

bool GridSampleChannelsLast(const ChannelsLastGeometry& geo, const TensorView& x,
                            const TensorView& grid, const MutableTensorView& y,
                            const GridSampleOptions& options) {
  if (grid.dtype != DType::kFloat32) return false;
  ChannelsLastProblem pb;
  if (!MakeProblem(geo, x, y, options, &pb)) return false;
  pb.grid = static_cast<const float*>(grid.data);
  return Run(pb, geo, x.dtype, options.mode);
}

bool WarpAffine(const ChannelsLastGeometry& geo, const TensorView& x, const TensorView& theta,
                const MutableTensorView& y, const GridSampleOptions& options) {
  if (theta.dtype != DType::kFloat32 && theta.dtype != DType::kFloat64) return false;
  ChannelsLastProblem pb;
  if (!MakeProblem(geo, x, y, options, &pb)) return false;
  pb.theta = theta.data;
  pb.theta_f64 = theta.dtype == DType::kFloat64;
  return Run(pb, geo, x.dtype, options.mode);
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
