// The numbers the sampling rules are written with, for the reference and the fast paths alike:
// each mode's window, Keys' cubic parameter, reflection's period and reduction, the far clamp.
#ifndef GRIDSAMPLE_RULES_CONSTANTS_H_
#define GRIDSAMPLE_RULES_CONSTANTS_H_

#include "gridsample/types.h"

namespace gridsample {

// Taps per axis of a mode: its window.
constexpr int TapsPerAxis(Mode mode) {
  return mode == Mode::kNearest ? 1 : (mode == Mode::kLinear ? 2 : 4);
}

// Keys' cubic convolution kernel parameter A, as PyTorch and ONNX.
constexpr double kCubicA = -0.75;

// Reflection repeats every 4 normalised units for both aligns (2S pixels with align 0, 2(S-1)
// with align 1). A coordinate beyond +-3 is reduced modulo 4 first, exactly (as fmod), so that
// huge coordinates reflect without overflow.
constexpr double kReflectionPeriod = 4.0;
constexpr double kReflectReduceAbove = 3.0;
// Reflection alone reduces far coordinates by whole periods (border and zeros clamp them).
constexpr bool ReducesFarCoordinates(Padding padding) { return padding == Padding::kReflection; }

// Beyond this many pixels outside an axis every value of Acc is an integer and all taps pad
// alike, so clamping pixel coordinates there changes no tap and no weight (the fraction is 0),
// and keeps their conversion to an integer defined: 2^23 in float, 2^52 in double.
template <typename Acc>
inline constexpr Acc kFarPixels = Acc(8388608.0);
template <>
inline constexpr double kFarPixels<double> = 4503599627370496.0;

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_CONSTANTS_H_
