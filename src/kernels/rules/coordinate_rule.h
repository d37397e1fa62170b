// The float coordinate GridSample takes from a grid value, in one place for the reference and the
// fast paths (float grids of other dtypes, AffineGrid's float64 values): reduced modulo 4 first
// for reflection when far, kept inside the compute type's range, non-finite kept non-finite.
#ifndef GRIDSAMPLE_RULES_COORDINATE_RULE_H_
#define GRIDSAMPLE_RULES_COORDINATE_RULE_H_

#include <cmath>
#include <limits>

#include "gridsample/types.h"
#include "rules/constants.h"
#include "rules/non_finite.h"

namespace gridsample {

// The finite coordinate g as Acc: reduced modulo 4 first when the padding reduces
// (ReducesFarCoordinates) and |g| > 3, then kept inside Acc's range (a float coordinate beyond
// float's range stays huge rather than becoming Inf).
template <typename Acc>
Acc CoordinateAs(double g, Padding padding) {
  if (ReducesFarCoordinates(padding) && std::fabs(g) > kReflectReduceAbove) {
    g = std::fmod(g, kReflectionPeriod);
  }
  constexpr double kMax = static_cast<double>(std::numeric_limits<Acc>::max());
  return static_cast<Acc>(g > kMax ? kMax : (g < -kMax ? -kMax : g));
}

// The float coordinate a float-compute GridSample takes from the grid value g: CoordinateAs, and
// NaN when g is not finite (a non-finite coordinate samples 0, rules/non_finite.h).
inline float CoordinateAsFloat(double g, Padding padding) {
  if (SamplesNothing(g)) return std::numeric_limits<float>::quiet_NaN();
  return CoordinateAs<float>(g, padding);
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_COORDINATE_RULE_H_
