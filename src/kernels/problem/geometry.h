// The sizes of a validated call, which validation (api/validation.h) fills and the kernels read:
// every size fits and every pointer of the call is usable once one of these is filled.
#ifndef GRIDSAMPLE_PROBLEM_GEOMETRY_H_
#define GRIDSAMPLE_PROBLEM_GEOMETRY_H_

#include <cstdint>

#include "gridsample/types.h"

namespace gridsample {

// A validated GridSample problem: every size fits, every pointer is usable.
struct GridSampleGeometry {
  int rank = 0;  // r, number of spatial axes
  int64_t n = 0, c = 0;
  int64_t in[kMaxSpatialRank] = {};   // D1..Dr, outermost first
  int64_t out[kMaxSpatialRank] = {};  // O1..Or, outermost first
  int64_t in_spatial = 0;             // D1 * .. * Dr
  int64_t out_spatial = 0;            // O1 * .. * Or
  // Y has no element: nothing to write, and nothing to compute (X may be empty too).
  bool Empty() const { return n == 0 || c == 0 || out_spatial == 0; }
};

// A validated AffineGrid problem.
struct AffineGridGeometry {
  int rank = 0;  // 2 or 3 spatial axes
  int64_t n = 0;
  int64_t spatial[3] = {};  // (H, W) or (D, H, W), outermost first
  int64_t points = 0;       // product of spatial
  // The grid has no element: nothing to write.
  bool Empty() const { return n == 0 || points == 0; }
};

// A validated channels-last 2-D problem: X (N, H, W, C) -> Y (N, Ho, Wo, C).
struct ChannelsLastGeometry {
  int64_t n = 0, c = 0;
  int64_t in_h = 0, in_w = 0;    // H, W of X
  int64_t out_h = 0, out_w = 0;  // Ho, Wo of the whole output
  int64_t row0 = 0, rows = 0;  // the rows Y holds: [row0, row0 + rows) of out_h (all unless a band)
  // Y has no element: nothing to write, and nothing to compute (X may be empty too).
  bool Empty() const { return n == 0 || rows == 0 || out_w == 0 || c == 0; }
};

// A validated MultiScaleDeformableAttention problem: value [N, S, M, D], sampling locations
// [N, Lq, M, sum(P_l), 2] (level l's P_l points contiguous), output [N, Lq, M * D]; the levels'
// sizes fit and add up to S, their starts agree.
struct DeformableAttentionGeometry {
  int64_t n = 0, s = 0, heads = 0, channels = 0;  // N, S, M, D
  int64_t queries = 0, levels = 0, points = 0;    // Lq, L, sum(P_l) (points of a query and head)
  const int64_t* shapes = nullptr;                // [levels, 2]: H_l, W_l
  const int64_t* starts = nullptr;                // [levels]: first row of S of each level
  const int64_t* level_points = nullptr;  // [levels]: P_l; null where every level has the same
  // P_l, the points of level l (the call's points_per_level, or sum(P_l) / L where it has none).
  int64_t LevelPoints(int64_t l) const { return level_points ? level_points[l] : points / levels; }
  // The output has no element: nothing to write, and nothing to compute.
  bool Empty() const { return n == 0 || queries == 0 || heads == 0 || channels == 0; }
};

}  // namespace gridsample

#endif  // GRIDSAMPLE_PROBLEM_GEOMETRY_H_
