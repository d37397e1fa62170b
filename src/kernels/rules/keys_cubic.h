// Keys' cubic convolution kernel (A = kCubicA, rules/constants.h), the one rule for the
// reference's and the planner's cubic weights: the tap at distance |t| from the sample weighs
//   near (|t| <= 1):    ((A + 2) t - (A + 3)) t t + 1
//   far (1 < |t| < 2):  ((A t - 5A) t + 8A) t - 4A
// and a fraction t past the window's second tap gives the weights far(t + 1), near(t),
// near(1 - t), far(2 - t). Each piece is one expression for every type: float or double (the
// reference) and a Highway float vector (the planner, through its operators), with the constants
// (A + 2, A + 3, 1; A, 5A, 8A, 4A: each exact in float) of that type. Macros, as in axis_line.h:
// a template defined here would lack each SIMD target's attributes.
#ifndef GRIDSAMPLE_RULES_KEYS_CUBIC_H_
#define GRIDSAMPLE_RULES_KEYS_CUBIC_H_

#include "rules/constants.h"

#define GRIDSAMPLE_CUBIC_NEAR(t, a_plus_2, a_plus_3, one) \
  (((((a_plus_2) * (t)) - (a_plus_3)) * (t)) * (t) + (one))
#define GRIDSAMPLE_CUBIC_FAR(t, a, a5, a8, a4) (((((a) * (t)) - (a5)) * (t) + (a8)) * (t) - (a4))

#endif  // GRIDSAMPLE_RULES_KEYS_CUBIC_H_
