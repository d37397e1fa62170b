// The non-finite coordinate rule, for every operator, source, dtype and target: a pixel whose
// coordinate is NaN or infinite on any axis samples nothing. Its output is 0 whatever the mode
// and padding (with a warp's fill, warp_affine.h, the fill colour), and no tap of X is read.
//
// Where it is applied:
// - the references test each pixel with SamplesNothing (reference/grid_sample_ref.cc,
//   reference/channels_last_ref.cc);
// - the planner, its vector form (planner/tile_plan-inl.h, PlanVector): every weight of a lane
//   with a non-finite coordinate is +0, so the blends sum 0 there (or only the fill);
// - every source keeps such a coordinate non-finite on its way there rather than clamping it to
//   a number: ToPixels adds g - g (planner/axis_plan-inl.h), the homography's quotient
//   (rules/perspective_rule.h), AffineGrid's values as floats (sources/affine_sums-inl.h,
//   rules/coordinate_rule.h CoordinateAsFloat).
#ifndef GRIDSAMPLE_RULES_NON_FINITE_H_
#define GRIDSAMPLE_RULES_NON_FINITE_H_

#include <cmath>

namespace gridsample {

// Whether a pixel with this coordinate on one of its axes samples nothing.
inline bool SamplesNothing(double coordinate) { return !std::isfinite(coordinate); }

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_NON_FINITE_H_
