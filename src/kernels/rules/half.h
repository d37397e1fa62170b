// IEEE half (float16) and bfloat16 <-> float32 conversions, round to nearest even.
#ifndef GRIDSAMPLE_RULES_HALF_H_
#define GRIDSAMPLE_RULES_HALF_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace gridsample {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// float16 bits -> float32 (exact: every half is a float).
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return BitsToFloat(sign | 0x7F800000u | (mant << 13));  // Inf / NaN
  if (exp != 0) return BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return BitsToFloat(sign);  // +-0
  // Subnormal half: value = mant * 2^-24, normalise into a float.
  int e = -1;
  do {
    ++e;
    mant <<= 1;
  } while ((mant & 0x400u) == 0);
  return BitsToFloat(sign | static_cast<uint32_t>(112 - e) << 23 | ((mant & 0x3FFu) << 13));
}

// float32 -> float16 bits, round to nearest even; overflow gives Inf, NaN stays NaN.
inline uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // Inf or NaN (keep NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or zero
    if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal: +-0
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // value / 2^-24 = mant * 2^(exp - 126)
    uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    return static_cast<uint16_t>(sign | half_mant);
  }
  // Normal: rebias the exponent, round the 13 dropped bits to nearest even.
  uint32_t rounded = abs + 0xFFFu + ((abs >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

// bfloat16 bits -> float32 (exact).
inline float BFloat16ToFloat(uint16_t b) { return BitsToFloat(static_cast<uint32_t>(b) << 16); }

// float32 -> bfloat16 bits, round to nearest even; NaN stays NaN.
inline uint16_t FloatToBFloat16(float f) {
  const uint32_t u = FloatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// double -> float rounded to odd: of the two floats around an inexact value, the one
// with an odd last bit. A later round-to-nearest-even to a narrower format (half,
// bfloat16) then equals rounding the double directly, so the value is rounded once.
inline float DoubleToFloatRoundToOdd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || !std::isfinite(f)) return f;
  if ((FloatBits(f) & 1u) == 0) {
    const float toward = static_cast<double>(f) < d ? std::numeric_limits<float>::infinity()
                                                    : -std::numeric_limits<float>::infinity();
    f = std::nextafter(f, toward);
  }
  return f;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_HALF_H_
