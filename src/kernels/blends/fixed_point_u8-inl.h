// The uint8 bilinear blend in fixed point, for vectors of pixels whose 2x2 windows all lie
// inside X: weights rounded to units of 2^-14 and one integer dot product per column of taps,
// far fewer instructions than the float blend (bench/README.md). Within 1 level of the reference:
// the weights are off by at most 4 * 2^-15 in total (0.03 levels); positions stepped in
// float32 (AffineRows) differ from the reference's by less than 2^-9 pixels (0.5 levels at a
// 0-to-255 edge); and two values less than 1 apart round at most 1 apart.
// Included once per Highway target (foreach_target), hence the toggling include guard.
#if defined(GRIDSAMPLE_BLENDS_FIXED_POINT_U8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_BLENDS_FIXED_POINT_U8_INL_H_
#undef GRIDSAMPLE_BLENDS_FIXED_POINT_U8_INL_H_
#else
#define GRIDSAMPLE_BLENDS_FIXED_POINT_U8_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "planner/axis_plan-inl.h"
#include "planner/limits.h"
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
  VF one, units, bias23, magic;           // 1, 2^14, 2^23, 1.5 * 2^23
  VI magic_bits, low16, row, channels;    // 1.5 * 2^23's bits, 0xFFFF, X's strides
};

// The planner's AxisTaps (planner/axis_plan-inl.h) for positions inside X, below 2^22: the
// integer a whole float holds is its bits relative to 1.5 * 2^23's (no float-to-int
// conversion, which Highway and V8 guard against overflow at some cost), and 1.0 is the
// register's.
struct InsideTaps {
  const FixedConsts& k;
  HWY_INLINE VF One(DF) const { return k.one; }
  HWY_INLINE VI Index(DI di, VF whole) const {
    return hn::Sub(hn::BitCast(di, hn::Add(whole, k.magic)), k.magic_bits);
  }
};

HWY_INLINE FixedConsts MakeFixedConsts(int32_t w, int32_t h, int32_t row, int32_t channels,
                                       VI opaque_zero) {
  const DF d;
  const DI di;
  const auto f = [&](float v) {
    return hn::BitCast(d, hn::Or(hn::BitCast(di, hn::Set(d, v)), opaque_zero));
  };
  const auto i = [&](int32_t v) { return hn::Or(hn::Set(di, v), opaque_zero); };
  // Aggregate initialisation: a default-constructed vector member would need the struct's
  // implicit constructor, which GCC does not compile for the target (NEON: "target specific
  // option mismatch").
  return FixedConsts{f(0.0f),
                     f(static_cast<float>(w - 1)),
                     f(static_cast<float>(h - 1)),
                     f(static_cast<float>(w - 2)),
                     f(static_cast<float>(h - 2)),
                     f(1.0f),
                     f(kFixedWeightUnits),
                     f(8388608.0f),
                     f(12582912.0f),
                     i(0x4B400000),
                     i(0xFFFF),
                     i(row),
                     i(channels)};
}

// Plans pixels at coordinates x, y (in pixels) for the fixed-point blend: the planner's taps
// and linear weights (AxisTaps), the weights quantised; false, planning nothing, unless every
// lane's 2x2 window lies inside X (NaN lies nowhere).
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
  // The planner's first taps and linear weights, both axes.
  VI ix, iy;
  VF wx[2], wy[2];
  const InsideTaps taps{k};
  AxisTaps<Mode::kLinear>(d, x, &ix, wx, taps);
  AxisTaps<Mode::kLinear>(d, y, &iy, wy, taps);
  hn::Store(hn::Add(hn::Mul(iy, k.row), hn::Mul(ix, k.channels)), di, plan->base);
  // Tap weights in units of 2^-14: x's weight times y's in those units (scaling by 2^14 is
  // exact, so the product is the real product's rounding, scaled); a float in [0, 2^14] plus
  // 2^23 has itself rounded (half to even) in its low bits, the high 16 of which the packing
  // drops: pair = (w_top & 0xFFFF) | (w_bottom << 16).
  const VF ay0 = hn::Mul(wy[0], k.units);
  const VF ay1 = hn::Mul(wy[1], k.units);
  const auto pair = [&](VF top, VF bottom) {
    const VI t = hn::BitCast(di, hn::Add(top, k.bias23));
    const VI b = hn::BitCast(di, hn::Add(bottom, k.bias23));
    return hn::Or(hn::And(t, k.low16), hn::ShiftLeft<16>(b));
  };
  hn::Store(pair(hn::Mul(wx[0], ay0), hn::Mul(wx[0], ay1)), di, plan->left);
  hn::Store(pair(hn::Mul(wx[1], ay0), hn::Mul(wx[1], ay1)), di, plan->right);
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
template <class Plan>
HWY_INLINE v128_t FixedPixelRgba(const Plan& plan, int p, const uint8_t* x, int32_t row,
                                 v128_t bias, v128_t unbias) {
  const uint8_t* src = x + plan.base[p];
  const v128_t tb = wasm_i8x16_shuffle(wasm_v128_load64_zero(src), wasm_v128_load64_zero(src + row),
                                       0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t left =
      wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(tb), wasm_v128_load32_splat(&plan.left[p]));
  const v128_t right = wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(tb),
                                            wasm_v128_load32_splat(&plan.right[p]));
  const v128_t sum = wasm_i32x4_add(left, right);
  return wasm_i32x4_add(wasm_f32x4_add(wasm_f32x4_convert_i32x4(sum), bias), unbias);
}

template <class Plan>
HWY_INLINE void FixedBlend4Rgba(const Plan& plan, const uint8_t* x, int32_t row, uint8_t* out) {
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
// column) give each channel's sum in units of 2^-14, rounded half to even to a byte. With
// `exact_last`, pixel valid - 1 (a segment's last) stores exactly C bytes (C = 3: the others
// write a fourth byte that the next pixel overwrites). `plan`: a FixedPlan, or anything whose
// base, left and right index alike (a plan kept by drivers/map_plan_driver.cc).
template <int C, class Plan>
HWY_INLINE void FixedBlend(const Plan& plan, const uint8_t* x, int32_t row,
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
    auto sum = hn::ReorderWidenMulAccumulate(
        d32, left, hn::BitCast(d16, hn::Set(d32, plan.left[p])), hn::Zero(d32), odd);
    sum = hn::ReorderWidenMulAccumulate(d32, right, hn::BitCast(d16, hn::Set(d32, plan.right[p])),
                                        sum, odd);
    sum = hn::RearrangeToOddPlusEven(sum, odd);
    // sum / 2^14 rounded half to even lands in the low mantissa bits of 2^37 + sum (sum is
    // below 2^24, so its conversion is exact; the result is at most 255).
    const auto bits =
        hn::Sub(hn::BitCast(du32, hn::Add(hn::ConvertTo(df, sum), hn::Set(df, 137438953472.0f))),
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

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_BLENDS_FIXED_POINT_U8_INL_H_
