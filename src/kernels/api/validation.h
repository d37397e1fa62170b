// Each operator's argument rule, defined beside its public function in api/*.cc, in one order:
// the inputs' shapes and dtypes and the output size they give (the "Inputs" rules, which the
// JS package's shape queries also ask), then the inputs' data, then the output. Each fills the
// geometry the kernels read. The calls and the tests use them.
#ifndef GRIDSAMPLE_API_VALIDATION_H_
#define GRIDSAMPLE_API_VALIDATION_H_

#include <cstddef>
#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gridsample/warp_affine.h"
#include "problem/channels_last_checks.h"
#include "problem/checks.h"
#include "problem/geometry.h"

namespace gridsample {

// GridSample (api/grid_sample.cc): X (N, C, D1..Dr), grid (N, O1..Or, r) of a float dtype.
template <Given kGiven = Given::kShapesAndDTypes>
Status ValidateGridSampleInputs(const TensorView& x, const TensorView& grid,
                                GridSampleGeometry* geometry);
// ... and Y (N, C, O1..Or) of X's dtype, overlapping neither.
Status ValidateGridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                          GridSampleGeometry* geometry);

// WarpFlow (api/warp_flow.cc): X (N, C, H, W), flow (N, 2, Ho, Wo) float32; geometry as for
// GridSample of rank 2.
Status ValidateWarpFlowInputs(const TensorView& x, const TensorView& flow,
                              GridSampleGeometry* geometry);
// ... and Y (N, C, Ho, Wo) of X's dtype, overlapping neither.
Status ValidateWarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                        GridSampleGeometry* geometry);

// AffineGrid (api/affine_grid.cc): theta (N, r, r + 1) of a float dtype for `size`, the grid
// (N, spatial..., r) of theta's dtype, not overlapping it.
Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView& grid, AffineGridGeometry* geometry);

// GridSampleChannelsLast (api/channels_last.cc): X (N, H, W, C), grid (N, Ho, Wo, 2) of a float
// dtype; geometry of the whole output.
Status ValidateGridSampleChannelsLastInputs(const TensorView& x, const TensorView& grid,
                                            ChannelsLastGeometry* geometry);
// ... and Y (N, Ho, Wo, C) of X's dtype, overlapping neither.
Status ValidateGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                      const MutableTensorView& y, ChannelsLastGeometry* geometry);

// WarpAffine and WarpPerspective (api/warp_affine.cc): X (N, H, W, C), theta (N, 2, 3) or H
// (N, 3, 3) float32 or float64, Y (N, Ho, Wo, C) of X's dtype (Ho, Wo free), no overlaps.
Status ValidateWarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                          ChannelsLastGeometry* geometry);
Status ValidateWarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                               ChannelsLastGeometry* geometry);

// Remap and WarpFlowChannelsLast (api/remap.cc): X (N, H, W, C), float32 maps (MapNames: one
// (N, Ho, Wo, 2) map of pairs, or two (N, Ho, Wo) planes), Y (N, Ho, Wo, C) of X's dtype, no
// overlaps.
Status ValidateRemap(const MapNames& names, const TensorView& x, const TensorView* maps, int count,
                     const MutableTensorView& y, ChannelsLastGeometry* geometry);
// ... a whole call of theirs: options, those tensors, then the fill.
Status ValidateRemapCall(const MapNames& names, const TensorView& x, const TensorView* maps,
                         int count, const MutableTensorView& y, const GridSampleOptions& options,
                         const double* fill, ChannelsLastGeometry* geometry);

// MultiScaleDeformableAttention (api/multi_scale_deformable_attention.cc): value [N, S, M, D]
// levels (at least one, H and W >= 1, starts their running sum, S their total); sampling
// locations [N, Lq, M, L, P, 2] and attention weights [N, Lq, M, L, P], or, where the levels
// list their points (each P_l >= 1), [N, Lq, M, sum(P_l), 2] and [N, Lq, M, sum(P_l)]; each input
// float32, float16 or bfloat16.
template <Given kGiven = Given::kShapesAndDTypes>
Status ValidateDeformableAttentionInputs(const TensorView& value, const DeformableLevels& levels,
                                         const TensorView& locations, const TensorView& weights,
                                         DeformableAttentionGeometry* geometry);
// The output's shape [N, Lq, M * D] for a validated geometry (3 values at y_shape).
void DeformableAttentionOutputShape(const DeformableAttentionGeometry& g, int64_t* y_shape);
// ... and y [N, Lq, M * D] of the value's dtype, overlapping no input.
Status ValidateDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                   const TensorView& locations, const TensorView& weights,
                                   const MutableTensorView& y,
                                   DeformableAttentionGeometry* geometry);
// ... a whole call of it: the options' threads and sampling first, then those tensors.
Status ValidateDeformableAttentionCall(const TensorView& value, const DeformableLevels& levels,
                                       const TensorView& locations, const TensorView& weights,
                                       const MutableTensorView& y,
                                       const MultiScaleDeformableAttentionOptions& options,
                                       DeformableAttentionGeometry* geometry);

// Output shapes the JS package sizes a call's output with before making it (the library's
// rule and messages, in its order): dtypes and shapes are looked at, data is not.
Status WarpFlowOutputShape(const TensorView& x, const TensorView& flow, int64_t* y_shape);
Status GridSampleChannelsLastOutputShape(const TensorView& x, const TensorView& grid,
                                         int64_t* y_shape);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_VALIDATION_H_
