// The pixel-coordinate rule of Remap and WarpFlow, in one place for the references and the fast
// planner: their positions are sampled as they are (pixel centres at integers), never through a
// normalised coordinate, so that weights exact in binary (a position of 1.5) stay exact.
#ifndef GRIDSAMPLE_RULES_PIXEL_RULE_H_
#define GRIDSAMPLE_RULES_PIXEL_RULE_H_

#include <cmath>
#include <cstdint>

namespace gridsample {

// The space a coordinate source's values live in: normalised (-1 and 1 at the image's edges or
// corner centres, DESIGN.md section 2; GridSample's grid, AffineGrid's values) or pixel positions
// (Remap's maps, WarpFlow's displaced positions).
enum class CoordinateSpace { kNormalised, kPixels };

// Reflection repeats every period along an axis of `size` pixels: 2 S about -0.5 and S - 0.5
// (align_corners 0), 2 (S - 1) about 0 and S - 1 (align_corners 1; 0 when S = 1, where every
// tap reflects to pixel 0). The pixel counterpart of reducing g modulo 4.
inline double ReflectionPeriod(int64_t size, bool align) {
  return align ? 2.0 * static_cast<double>(size - 1) : 2.0 * static_cast<double>(size);
}

// Whether reflection reduces the position u first: outside [-period, 2 period] (so that the
// planner's integer reflection only meets taps within a few periods of the image).
inline bool PixelIsFar(float u, double period) {
  return period > 0.0 && (u < -period || u > 2.0 * period);
}

// Reflection's reduction of a far position: u moved by whole periods into (-period - 0.5,
// period), as fmod(u + 0.5, period) - 0.5 (align 0; about 0 for align 1), in double. Exact on
// axes below 2^23 pixels: u + 0.5 is exact in double, fmod is exact, and u - k period is a
// multiple of u's float spacing no larger than |u| (an integer below 2^24 where that spacing
// exceeds 1), so it converts to float exactly.
inline float ReducePixel(float u, int64_t size, bool align) {
  const double period = ReflectionPeriod(size, align);
  if (!PixelIsFar(u, period)) return u;
  const double centre = align ? 0.0 : 0.5;
  return static_cast<float>(std::fmod(static_cast<double>(u) + centre, period) - centre);
}

// WarpFlow's position of output column (or row) k displaced by d pixels: float(k) + d, one
// rounding (k below 2^24, exact as a float).
inline float FlowPosition(int64_t k, float d) { return static_cast<float>(k) + d; }

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_PIXEL_RULE_H_
