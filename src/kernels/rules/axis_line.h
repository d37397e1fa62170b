// The normalised axis line: the one rule from a normalised coordinate g to a pixel position on an
// axis of S pixels (DESIGN.md section 2), for the reference, the planner and the affine warp's
// stepped positions (js/images/axis_line.mjs is JavaScript's copy, js/webgpu/wgsl_rules.mjs
// WGSL's):
//   align_corners 0: x = ((g + 1) * S - 1) / 2    (-1 and 1 at the outer pixels' edges)
//   align_corners 1: x = ((g + 1) / 2) * (S - 1)  (at their centres; 0 when S = 1)
// Both as x = ((g + 1) * scale - shift) * 0.5. Halving is exact in binary, so it may come last:
// for align_corners 1 the value is PyTorch's, the same rounding of the same product, and where
// the product overflows and PyTorch's would not, both lie beyond the far clamp.
#ifndef GRIDSAMPLE_RULES_AXIS_LINE_H_
#define GRIDSAMPLE_RULES_AXIS_LINE_H_

#include <cstdint>

namespace gridsample {

// An axis's line: scale S and shift 1 (align_corners 0), or S - 1 and 0 (align_corners 1).
struct AxisLine {
  double scale, shift;
  // The same line as x = Slope() * g + Offset(), exact in real numbers: the pixels per
  // normalised unit, and the pixel at g = 0 ((S - 1) / 2 either way).
  double Slope() const { return 0.5 * scale; }
  double Offset() const { return 0.5 * (scale - shift); }
};

inline AxisLine NormalisedLine(int64_t size, bool align_corners) {
  return align_corners ? AxisLine{static_cast<double>(size - 1), 0.0}
                       : AxisLine{static_cast<double>(size), 1.0};
}

// The pixel position of g on the line, one expression for every type: float or double (the
// reference) and a Highway float vector (the planner, through its operators), with the line's
// terms and the constants 1 and 0.5 of that type. A macro: a template defined here would lack
// each SIMD target's attributes where the planner instantiates it.
#define GRIDSAMPLE_PIXEL_ON_LINE(g, scale, shift, one, half) \
  ((((g) + (one)) * (scale) - (shift)) * (half))

// The same align_corners 0 line for a location u in [0, 1] of an axis of S pixels (multi-scale
// deformable attention's sampling locations, whose chain samples GridSample at g = 2 u - 1):
//   x = u * S - 0.5
// which is ((2 u) * S - 1) * 0.5 rounded alike (doubling and halving are exact in binary), so it
// equals the line at g + 1 = 2 u, computed without the rounding of 2 u - 1 that the chain adds
// (exact for u in [0.25, 1] and for dyadic u). One expression for float and Highway vectors, as
// above.
#define GRIDSAMPLE_PIXEL_OF_UNIT(u, size, half) ((u) * (size) - (half))

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_AXIS_LINE_H_
