// Element types of the native suites, written independently of the library: names, exact rounding.
//
// Sizes, names (of modes and paddings too), integer ranges, rounding to every dtype, ulps, and
// half / bfloat16 bits (half.h is under test too).
#ifndef GRIDSAMPLE_TESTS_NATIVE_TEST_DTYPES_H_
#define GRIDSAMPLE_TESTS_NATIVE_TEST_DTYPES_H_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "gridsample/types.h"

namespace gridsample_test {

using gridsample::DType;
using gridsample::Mode;
using gridsample::Padding;

inline size_t ElementSize(DType t) {
  switch (t) {
    case DType::kFloat64: return 8;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUint32: return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUint16: return 2;
    case DType::kInt8:
    case DType::kUint8: return 1;
  }
  return 0;
}

inline const char* Name(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt8: return "int8";
    case DType::kUint8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kUint16: return "uint16";
    case DType::kInt32: return "int32";
    case DType::kUint32: return "uint32";
  }
  return "?";
}
inline const char* Name(Mode m) {
  switch (m) {
    case Mode::kLinear: return "linear";
    case Mode::kNearest: return "nearest";
    case Mode::kCubic: return "cubic";
  }
  return "?";
}
inline const char* Name(Padding p) {
  switch (p) {
    case Padding::kZeros: return "zeros";
    case Padding::kBorder: return "border";
    case Padding::kReflection: return "reflection";
  }
  return "?";
}

inline bool IsInteger(DType t) {
  return t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16 &&
         t != DType::kBFloat16;
}

inline double IntMin(DType t) {
  switch (t) {
    case DType::kInt8: return -128.0;
    case DType::kInt16: return -32768.0;
    case DType::kInt32: return -2147483648.0;
    default: return 0.0;
  }
}
inline double IntMax(DType t) {
  switch (t) {
    case DType::kInt8: return 127.0;
    case DType::kUint8: return 255.0;
    case DType::kInt16: return 32767.0;
    case DType::kUint16: return 65535.0;
    case DType::kInt32: return 2147483647.0;
    case DType::kUint32: return 4294967295.0;
    default: return 0.0;
  }
}

// Round v to a binary format with `precision` significant bits, smallest normal 2^min_exp
// and largest finite `max_finite`, to nearest even, overflowing to infinity. Scaling by a
// power of two is exact, so nearbyint (ties to even) does the whole rounding.
inline double RoundToBinaryFormat(double v, int precision, int min_exp, double max_finite) {
  if (!std::isfinite(v) || v == 0.0) return v;
  int e = 0;
  std::frexp(v, &e);                          // |v| in [2^(e-1), 2^e)
  const int lead = std::max(e - 1, min_exp);  // subnormals share the smallest normal's quantum
  const double quantum = std::ldexp(1.0, lead - (precision - 1));
  const double r = std::nearbyint(v / quantum) * quantum;
  if (std::fabs(r) > max_finite) return std::copysign(HUGE_VAL, v);
  return r;
}

inline constexpr double kHalfMax = 65504.0;
inline constexpr double kBFloat16Max = 0x1.FEp127;  // 0x7F7F

inline double RoundToHalf(double v) { return RoundToBinaryFormat(v, 11, -14, kHalfMax); }
inline double RoundToBFloat16(double v) { return RoundToBinaryFormat(v, 8, -126, kBFloat16Max); }
inline double RoundToFloat(double v) { return RoundToBinaryFormat(v, 24, -126, FLT_MAX); }

// The value a result of exact value v must have in dtype t: floats round to nearest even,
// integers round half to even and saturate (DESIGN.md section 2).
inline double RoundToDType(double v, DType t) {
  switch (t) {
    case DType::kFloat64: return v;
    case DType::kFloat32: return RoundToFloat(v);
    case DType::kFloat16: return RoundToHalf(v);
    case DType::kBFloat16: return RoundToBFloat16(v);
    default: break;
  }
  if (std::isnan(v)) return 0.0;
  const double r = std::nearbyint(v);
  return std::min(std::max(r, IntMin(t)), IntMax(t));
}

// Spacing of dtype t's values around |v| (1 for integers).
inline double Ulp(double v, DType t) {
  int precision = 53, min_exp = -1022;
  switch (t) {
    case DType::kFloat64: break;
    case DType::kFloat32:
      precision = 24;
      min_exp = -126;
      break;
    case DType::kFloat16:
      precision = 11;
      min_exp = -14;
      break;
    case DType::kBFloat16:
      precision = 8;
      min_exp = -126;
      break;
    default: return 1.0;
  }
  int e = 0;
  std::frexp(v == 0.0 ? 1e-300 : v, &e);
  return std::ldexp(1.0, std::max(e - 1, min_exp) - (precision - 1));
}

inline double HalfBitsToDouble(uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  if (exp == 0x1F) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// Bits of a value that is already a half (or +-inf / NaN).
inline uint16_t HalfBitsFromDouble(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  const double a = std::fabs(v);
  if (std::isnan(v)) return static_cast<uint16_t>(sign | 0x7E00u);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a < 0x1p-14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(a * 0x1p24));
  int e = 0;
  std::frexp(a, &e);
  const int lead = e - 1;
  const auto mant = static_cast<uint16_t>(std::ldexp(a, -lead) * 1024.0 - 1024.0);
  return static_cast<uint16_t>(sign | ((lead + 15) << 10) | mant);
}

inline double BFloat16BitsToDouble(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Bits of a value that is already a bfloat16 (or +-inf / NaN).
inline uint16_t BFloat16BitsFromDouble(double v) {
  if (std::isnan(v)) return std::signbit(v) ? 0xFFC0u : 0x7FC0u;
  const float f = static_cast<float>(v);  // exact: v is a bfloat16 value or +-inf
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_TEST_DTYPES_H_
