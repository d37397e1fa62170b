// float16 / bfloat16 conversions (src/kernels/rules/half.h) against independent rounding.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <ios>

#include "rules/half.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

bool IsHalfNaN(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
bool IsBFloat16NaN(uint16_t b) { return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0; }
float FloatFromBits(uint32_t u) { return gridsample::BitsToFloat(u); }

uint16_t ExpectedHalf(float f) {
  if (std::isnan(f)) return 0x7E00u;
  return HalfBitsFromDouble(RoundToHalf(static_cast<double>(f)));
}
uint16_t ExpectedBFloat16(float f) {
  if (std::isnan(f)) return 0x7FC0u;
  return BFloat16BitsFromDouble(RoundToBFloat16(static_cast<double>(f)));
}

TEST(HalfConversion, AllHalvesDecodeExactlyAndRoundTrip) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = gridsample::HalfToFloat(bits);
    const double want = HalfBitsToDouble(bits);
    if (IsHalfNaN(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << "half 0x" << h;
      ASSERT_TRUE(IsHalfNaN(gridsample::FloatToHalf(f))) << std::hex << "half NaN 0x" << h;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), want) << std::hex << "half 0x" << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << "sign of half 0x" << h;
    ASSERT_EQ(gridsample::FloatToHalf(f), bits) << std::hex << "round trip of half 0x" << h;
  }
}

TEST(HalfConversion, MidpointsRoundToEven) {
  // Between consecutive finite halves a < b (same sign): the exact midpoint goes to the
  // one with an even mantissa, one float ulp either side goes to the nearer one.
  for (uint32_t h = 0; h < 0x7BFFu; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const auto lo_bits = static_cast<uint16_t>(h | sign);
      const auto hi_bits = static_cast<uint16_t>((h + 1) | sign);
      const double mid = (HalfBitsToDouble(lo_bits) + HalfBitsToDouble(hi_bits)) / 2.0;
      const auto fmid = static_cast<float>(mid);  // exact: 12 significant bits
      ASSERT_EQ(static_cast<double>(fmid), mid);
      const uint16_t even = (h & 1u) ? hi_bits : lo_bits;
      ASSERT_EQ(gridsample::FloatToHalf(fmid), even) << std::hex << "midpoint after 0x" << lo_bits;
      const float below = std::nextafter(fmid, 0.0f), above = std::nextafter(fmid, 2.0f * fmid);
      ASSERT_EQ(gridsample::FloatToHalf(below), lo_bits)
          << std::hex << "just below mid 0x" << lo_bits;
      ASSERT_EQ(gridsample::FloatToHalf(above), hi_bits)
          << std::hex << "just above mid 0x" << lo_bits;
    }
  }
}

TEST(HalfConversion, SpecialValues) {
  struct Case {
    float f;
    uint16_t want;
  };
  const Case kCases[] = {
      {1.0f + 0x1p-11f, 0x3C00u},      // tie -> even 1.0
      {1.0f + 3 * 0x1p-11f, 0x3C02u},  // tie -> even 1 + 2^-9
      {65504.0f, 0x7BFFu},             // largest half
      {65519.996f, 0x7BFFu},           // just below the overflow tie
      {65520.0f, 0x7C00u},             // tie between 65504 and 2^16 -> even -> inf
      {FLT_MAX, 0x7C00u},
      {-FLT_MAX, 0xFC00u},
      {HUGE_VALF, 0x7C00u},
      {-HUGE_VALF, 0xFC00u},
      {0x1p-24f, 0x0001u},             // smallest subnormal
      {0x1p-25f, 0x0000u},             // tie with 0 -> even 0
      {0x1.000002p-25f, 0x0001u},      // just above that tie
      {3 * 0x1p-25f, 0x0002u},         // tie between 1 and 2 ulps -> 2
      {0x1p-14f - 0x1p-25f, 0x0400u},  // tie between largest subnormal and smallest normal
      {0x1p-14f, 0x0400u},             // smallest normal
      {FLT_TRUE_MIN, 0x0000u},
      {-FLT_TRUE_MIN, 0x8000u},
      {-0.0f, 0x8000u},
      {0.0f, 0x0000u},
  };
  for (const Case& c : kCases) {
    EXPECT_EQ(gridsample::FloatToHalf(c.f), c.want) << std::hexfloat << c.f;
    EXPECT_EQ(ExpectedHalf(c.f), c.want) << "test oracle disagrees on " << std::hexfloat << c.f;
  }
  // NaN stays NaN, including a float NaN whose payload is only in the bits a half drops.
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7F802000u}) {
    EXPECT_TRUE(IsHalfNaN(gridsample::FloatToHalf(FloatFromBits(bits)))) << std::hex << bits;
  }
}

TEST(HalfConversion, SampledFloatsMatchIndependentRounding) {
  // Every 4099th float bit pattern (~1M values over all exponents and both signs).
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) {
    const float f = FloatFromBits(static_cast<uint32_t>(u));
    const uint16_t got = gridsample::FloatToHalf(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsHalfNaN(got)) << std::hex << u;
      continue;
    }
    ASSERT_EQ(got, ExpectedHalf(f))
        << std::hex << "float bits 0x" << u << " = " << std::hexfloat << f;
  }
}

TEST(BFloat16Conversion, AllPatternsDecodeExactlyAndRoundTrip) {
  for (uint32_t b = 0; b < 0x10000u; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = gridsample::BFloat16ToFloat(bits);
    if (IsBFloat16NaN(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_TRUE(IsBFloat16NaN(gridsample::FloatToBFloat16(f))) << std::hex << b;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), BFloat16BitsToDouble(bits)) << std::hex << b;
    ASSERT_EQ(gridsample::FloatToBFloat16(f), bits) << std::hex << "round trip of 0x" << b;
  }
}

TEST(BFloat16Conversion, MidpointsRoundToEven) {
  for (uint32_t b = 0; b < 0x7F7Fu; ++b) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const auto lo_bits = static_cast<uint16_t>(b | sign);
      const auto hi_bits = static_cast<uint16_t>((b + 1) | sign);
      // The midpoint's float bits are lo's bits followed by 0x8000.
      const float mid = FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x8000u);
      const uint16_t even = (b & 1u) ? hi_bits : lo_bits;
      ASSERT_EQ(gridsample::FloatToBFloat16(mid), even)
          << std::hex << "midpoint after 0x" << lo_bits;
      ASSERT_EQ(gridsample::FloatToBFloat16(
                    FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x7FFFu)),
                lo_bits);
      ASSERT_EQ(gridsample::FloatToBFloat16(
                    FloatFromBits((static_cast<uint32_t>(lo_bits) << 16) | 0x8001u)),
                hi_bits);
    }
  }
}

TEST(BFloat16Conversion, SpecialValues) {
  struct Case {
    uint32_t float_bits;
    uint16_t want;
  };
  const Case kCases[] = {
      {0x3F808000u, 0x3F80u},  // tie -> even
      {0x3F818000u, 0x3F82u},  // tie -> even (up)
      {0x7F7F7FFFu, 0x7F7Fu},  // just below the overflow tie
      {0x7F7F8000u, 0x7F80u},  // tie between the largest bfloat16 and 2^128 -> inf
      {0x7F7FFFFFu, 0x7F80u},  // FLT_MAX -> inf
      {0xFF7FFFFFu, 0xFF80u},  // -FLT_MAX -> -inf
      {0x7F800000u, 0x7F80u},  // inf
      {0x00008000u, 0x0000u},  // subnormal tie with 0 -> 0
      {0x00018000u, 0x0002u},  // subnormal tie -> even
      {0x00000001u, 0x0000u}, {0x80000001u, 0x8000u},
      {0x007FFFFFu, 0x0080u},  // largest float subnormal rounds up to the smallest normal
  };
  for (const Case& c : kCases) {
    const float f = FloatFromBits(c.float_bits);
    EXPECT_EQ(gridsample::FloatToBFloat16(f), c.want) << std::hex << c.float_bits;
    EXPECT_EQ(ExpectedBFloat16(f), c.want)
        << "test oracle disagrees on " << std::hex << c.float_bits;
  }
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7F80FFFFu}) {
    EXPECT_TRUE(IsBFloat16NaN(gridsample::FloatToBFloat16(FloatFromBits(bits))))
        << std::hex << bits;
  }
}

TEST(BFloat16Conversion, SampledFloatsMatchIndependentRounding) {
  for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) {
    const float f = FloatFromBits(static_cast<uint32_t>(u));
    const uint16_t got = gridsample::FloatToBFloat16(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(IsBFloat16NaN(got)) << std::hex << u;
      continue;
    }
    ASSERT_EQ(got, ExpectedBFloat16(f)) << std::hex << "float bits 0x" << u;
  }
}

}  // namespace
}  // namespace gridsample_test
