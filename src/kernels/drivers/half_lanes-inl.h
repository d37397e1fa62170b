// float16 bits -> float32 in one vector, exactly as HalfToFloat (half.h): for the whole-array
// conversion (drivers/half_convert.cc) and the kernels that read float16 taps in place
// (drivers/attention_driver.cc). Included once per Highway target (foreach_target), hence the
// toggling include guard.
#if defined(GRIDSAMPLE_DRIVERS_HALF_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GRIDSAMPLE_DRIVERS_HALF_LANES_INL_H_
#undef GRIDSAMPLE_DRIVERS_HALF_LANES_INL_H_
#else
#define GRIDSAMPLE_DRIVERS_HALF_LANES_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace gridsample {
namespace fast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes(df) float16 bit patterns from `src` (unaligned) as float32: normal values rebiased,
// subnormals as mant * 2^-24 (exact in float), Inf and NaN (payload kept).
HWY_INLINE hn::Vec<hn::ScalableTag<float>> HalfLanesToFloats(hn::ScalableTag<float> df,
                                                             const uint16_t* HWY_RESTRICT src) {
  const hn::RebindToSigned<decltype(df)> di;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const auto bits = hn::BitCast(di, hn::PromoteTo(du, hn::LoadU(d16, src)));
  const auto sign =
      hn::BitCast(di, hn::ShiftLeft<16>(hn::BitCast(du, hn::And(bits, hn::Set(di, 0x8000)))));
  const auto exp = hn::And(hn::ShiftRight<10>(bits), hn::Set(di, 0x1F));
  const auto mant = hn::And(bits, hn::Set(di, 0x3FF));
  const auto normal =
      hn::Or(hn::ShiftLeft<23>(hn::Add(exp, hn::Set(di, 112))), hn::ShiftLeft<13>(mant));
  const auto special = hn::Or(hn::Set(di, 0x7F800000), hn::ShiftLeft<13>(mant));
  const auto subnormal =
      hn::BitCast(di, hn::Mul(hn::ConvertTo(df, mant), hn::Set(df, 5.9604644775390625e-8f)));
  const auto value =
      hn::IfThenElse(hn::Eq(exp, hn::Zero(di)), subnormal,
                     hn::IfThenElse(hn::Eq(exp, hn::Set(di, 0x1F)), special, normal));
  return hn::BitCast(df, hn::Or(value, sign));
}

}  // namespace HWY_NAMESPACE
}  // namespace fast
}  // namespace gridsample
HWY_AFTER_NAMESPACE();

#endif  // GRIDSAMPLE_DRIVERS_HALF_LANES_INL_H_
