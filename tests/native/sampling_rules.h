// DESIGN.md section 2's sampling rules written from the text: oracles for the property tests.
#ifndef GRIDSAMPLE_TESTS_NATIVE_SAMPLING_RULES_H_
#define GRIDSAMPLE_TESTS_NATIVE_SAMPLING_RULES_H_

#include <cmath>
#include <cstdint>

#include "test_util.h"

namespace gridsample_test {

// Where integer tap j of an axis of size s lands after padding, or -1 when zeros padding
// drops it. Reflection is about [-0.5, s-0.5] (align 0) or [0, s-1] (align 1).
inline int64_t PadIndex(int64_t j, int64_t s, Padding padding, bool align) {
  if (j >= 0 && j < s) return j;
  switch (padding) {
    case Padding::kZeros: return -1;
    case Padding::kBorder: return j < 0 ? 0 : s - 1;
    case Padding::kReflection: {
      if (align) {
        if (s == 1) return 0;
        const int64_t period = 2 * (s - 1);
        const int64_t m = ((j % period) + period) % period;
        return m <= s - 1 ? m : period - m;
      }
      const int64_t period = 2 * s;
      const int64_t m = ((j % period) + period) % period;
      return m < s ? m : period - 1 - m;
    }
  }
  return -1;
}

// The normalized coordinate whose pixel coordinate is exactly j (the section 2 maps,
// inverted). With s = 1 and align 1 every g maps to 0, so any value will do.
inline double CentreToGrid(int64_t j, int64_t s, bool align) {
  if (align) return s == 1 ? 0.25 * static_cast<double>(j) : -1.0 + 2.0 * j / (s - 1.0);
  return (2.0 * j + 1.0) / s - 1.0;
}

// AffineGrid's base coordinate of pixel i of an axis of size s.
inline double BaseCoordinate(int64_t i, int64_t s, bool align) {
  if (align) return s == 1 ? 0.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(s - 1);
  return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(s) - 1.0;
}

// Keys cubic kernel, A = -0.75, at distance d from a tap.
inline double Keys(double d) {
  constexpr double kA = -0.75;
  d = std::fabs(d);
  if (d <= 1.0) return ((kA + 2.0) * d - (kA + 3.0)) * d * d + 1.0;
  if (d < 2.0) return ((kA * d - 5.0 * kA) * d + 8.0 * kA) * d - 4.0 * kA;
  return 0.0;
}

inline GridSampleOptions Options(Mode m, Padding p, bool align) {
  GridSampleOptions o;
  o.mode = m;
  o.padding = p;
  o.align_corners = align;
  return o;
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_SAMPLING_RULES_H_
