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

// Same contract as gridsample::GridSample (validation included), always computed
// by the plain scalar reference written from DESIGN.md section 2.
Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options = {});

// Same contract as gridsample::AffineGrid, always the scalar reference.
Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options = {});

// Same contracts as gridsample::WarpFlow and both gridsample::Remap, always the scalar
// reference: the pixel-coordinate oracle.
Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options = {});
Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options = {}, const double* fill = nullptr);
Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options = {},
             const double* fill = nullptr);

// Same contract as gridsample::MultiScaleDeformableAttention, always the scalar reference
// (reference/deformable_attention_ref.cc).
Status MultiScaleDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                     const TensorView& sampling_locations,
                                     const TensorView& attention_weights,
                                     const MutableTensorView& y,
                                     const MultiScaleDeformableAttentionOptions& options = {});

// The kernels behind those calls and every other sampling call, for a validated problem
// (problem/problem.h). With a fill, each tap outside X contributes fill[c] with its weight.
void Run(const PlanesProblem& problem);
void Run(const PixelsProblem& problem);
void Run(const DeformableAttentionProblem& problem);
void RunAffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options);

// The reference's building blocks, shared with the fast paths so that they pick the very same
// taps, weights, coordinates and base coordinates.

// Taps along one axis: padded index (-1 when zeros padding drops the tap) and weight.
template <typename Acc>
struct AxisTaps {
  int count = 0;
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

// The float coordinate a float-compute GridSample takes from the grid value g: reduced
// modulo 4 first for reflection (ReducesFarCoordinates) when |g| > 3, kept inside float's range,
// NaN when g is not finite (a non-finite coordinate samples 0).
float CoordinateAsFloat(double g, Padding padding);

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_REFERENCE_REFERENCE_H_
