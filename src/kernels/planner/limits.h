// Named limits of the fast paths: the sizes they take, tile budgets (the sampling rules' own
// numbers are rules/constants.h).
#ifndef GRIDSAMPLE_PLANNER_LIMITS_H_
#define GRIDSAMPLE_PLANNER_LIMITS_H_

#include <cstdint>

#include "gridsample/types.h"
#include "rules/constants.h"

namespace gridsample {
namespace fast {

// Axis sizes the fast paths take: below 2^21, so that every tap of a clamped coordinate, and
// reflection's integer folding of it, stays far inside int32.
constexpr int64_t kMaxAxis = int64_t{1} << 21;

// Element offsets into one image or plane are int32.
constexpr int64_t kMaxElements = int64_t{1} << 31;

// Output columns (WarpPerspective) and a flow's output rows and columns as exact int32 lanes
// and floats: larger outputs are left to the reference.
constexpr int64_t kMaxPerspectiveWidth = int64_t{1} << 24;
constexpr int64_t kMaxFlowSide = int64_t{1} << 24;

// Bytes of the plans of one tile of output pixels (offsets and weights): they stay in L1/L2
// while every channel is blended from them. And the most pixels a tile holds.
constexpr int kTilePlanBytes = 32768;
constexpr int kMaxTilePixels = 1024;

// Output columns whose affine column terms (doubles) are kept on the stack at once.
constexpr int kAffineTile = 512;

// uint8 bilinear in fixed point: weights in units of 2^-14 (the two axes' weights multiplied,
// one of them first scaled by 2^14, then rounded), and the largest image side for which the
// affine warp's float32 stepped positions stay within 2^-10 pixels of AffineGrid's (at most 0.5
// levels at a 0-to-255 edge).
constexpr float kFixedWeightUnits = 16384.0f;
constexpr int32_t kFixedMaxSide = 4096;

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_PLANNER_LIMITS_H_
