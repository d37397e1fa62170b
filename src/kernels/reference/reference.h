// Scalar reference kernels: the oracle every fast path is tested against.
#ifndef GRIDSAMPLE_REFERENCE_REFERENCE_H_
#define GRIDSAMPLE_REFERENCE_REFERENCE_H_

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "problem/geometry.h"
#include "problem/problem.h"
#include "rules/pixel_rule.h"

namespace gridsample {
namespace reference {

// The kernels behind the reference's calls (api/reference_calls.h) and every other sampling
// call, for a validated problem (problem/problem.h). With a fill, fill[c] is added once with the
// weight left outside X (1 minus the window's weights, in order), as the fast blends add it.
void Run(const PlanesProblem& problem);
void Run(const PixelsProblem& problem);
void Run(const DeformableAttentionProblem& problem);
void RunAffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options);

// The reference's building blocks, which the tests hold the planner to (plan_test.cc): the
// same taps, weights and windows.

// Taps along one axis: padded index (-1 when zeros padding drops the tap) and weight, and the
// first tap's index before padding.
template <typename Acc>
struct AxisTaps {
  int count = 0;
  int64_t first = 0;
  int64_t index[4];
  Acc weight[4];
};
// Taps for the finite coordinate v on an axis of size s, computed in Acc: a normalised
// coordinate, or a pixel position (a float; pixel_rule.h: reduced by whole periods for far
// reflection, otherwise taken as it is).
void ComputeTaps(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                 AxisTaps<float>* taps);
void ComputeTaps(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                 AxisTaps<double>* taps);

// An axis's taps folded into a window as the fast planner folds them (planner/axis_plan-inl.h,
// PlanPixels), so that every path rounds alike: `count` consecutive pixels from start = the
// smallest tap (before zeros padding; after border or reflection) clamped into [0, s - count], and
// per window slot the weights of the taps padding maps onto that pixel, added in tap order from
// +0 (a tap zeros padding drops adds nothing). An axis shorter than the window starts it at 0;
// its slots past the axis weigh 0 and read the last pixel (no fast path takes such an axis; the
// WebGPU shaders fold the same way).
template <typename Acc>
struct AxisWindow {
  int count = 0;
  int64_t index[4];  // the pixel each slot reads
  Acc weight[4];
};
// ComputeTaps, folded.
void ComputeWindow(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                   AxisWindow<float>* window);
void ComputeWindow(CoordinateSpace space, double v, int64_t s, const GridSampleOptions& options,
                   AxisWindow<double>* window);

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_REFERENCE_REFERENCE_H_
