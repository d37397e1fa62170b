// float16 <-> float32 conversions of whole arrays on the fast path, exactly as half.h's scalar
// ones: the NCHW kernels compute float16 tensors in float32 around them.
#include <cstdint>

#include "drivers/fast.h"
#include "rules/half.h"

// foreach_target.h re-includes this file per target, then the -inl.h files: order matters.
// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "drivers/half_convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "drivers/half_lanes-inl.h"
// clang-format on

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// float16 bits -> float32 for n values, exactly as HalfToFloat (half.h): whole vectors by
// HalfLanesToFloats (drivers/half_lanes-inl.h), the rest one by one.
void HalfsToFloatsKernel(const uint16_t* HWY_RESTRICT src, float* HWY_RESTRICT dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(HalfLanesToFloats(df, src + i), df, dst + i);
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

// float32 -> float16 bits for n values, exactly as FloatToHalf (half.h): round to nearest
// even, subnormals by rounding x * 2^24 to an integer, overflow to Inf, NaN stays NaN.
void FloatsToHalfsKernel(const float* HWY_RESTRICT src, uint16_t* HWY_RESTRICT dst, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto u = hn::BitCast(du, hn::LoadU(df, src + i));
    const auto sign = hn::BitCast(di, hn::And(hn::ShiftRight<16>(u), hn::Set(du, 0x8000)));
    // Arithmetic in unsigned lanes (it wraps for lanes another branch takes); comparisons in
    // signed ones (every |x| bit pattern is below 2^31).
    const auto abs_u = hn::And(u, hn::Set(du, 0x7FFFFFFF));
    const auto abs = hn::BitCast(di, abs_u);
    const auto rounded = hn::Add(hn::Add(abs_u, hn::Set(du, 0xFFF)),
                                 hn::And(hn::ShiftRight<13>(abs_u), hn::Set(du, 1)));
    auto h = hn::BitCast(di, hn::ShiftRight<13>(hn::Sub(rounded, hn::Set(du, 0x38000000))));
    // x * 2^24 for the subnormal lanes; the others (NaN and huge values too) are capped at
    // 2^-14 first, so that no lane converts an out-of-range float to an integer.
    const auto small = hn::Min(abs, hn::Set(di, 0x38800000));
    const auto scaled = hn::Mul(hn::BitCast(df, small), hn::Set(df, 16777216.0f));
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x38800000)), hn::ConvertTo(di, hn::Round(scaled)),
                       h);
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x477FF000)), h, hn::Set(di, 0x7C00));
    const auto nan = hn::IfThenElseZero(hn::Gt(abs, hn::Set(di, 0x7F800000)), hn::Set(di, 0x200));
    h = hn::IfThenElse(hn::Lt(abs, hn::Set(di, 0x7F800000)), h, hn::Or(hn::Set(di, 0x7C00), nan));
    hn::StoreU(hn::DemoteTo(d16, hn::Or(h, sign)), d16, dst + i);
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace gridsample {
namespace fast {

HWY_EXPORT(HalfsToFloatsKernel);
HWY_EXPORT(FloatsToHalfsKernel);

void HalfsToFloats(const uint16_t* src, float* dst, int64_t n) {
  GRIDSAMPLE_DISPATCH(HalfsToFloatsKernel)(src, dst, n);
}

void FloatsToHalfs(const float* src, uint16_t* dst, int64_t n) {
  GRIDSAMPLE_DISPATCH(FloatsToHalfsKernel)(src, dst, n);
}

}  // namespace fast
}  // namespace gridsample
#endif  // HWY_ONCE
