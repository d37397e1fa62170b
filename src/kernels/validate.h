// Argument validation for the public calls: shapes, dtypes, pointers, sizes.
#ifndef GRIDSAMPLE_VALIDATE_H_
#define GRIDSAMPLE_VALIDATE_H_

#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/warp_affine.h"
#include "problem/geometry.h"

namespace gridsample {

// Checks x and grid; when y is non-null also its shape, dtype, pointer and that
// it does not overlap x or grid. Fills `geometry` on success. With `shapes_only`,
// dtypes and data pointers are not looked at (for GridSampleOutputShape).
Status ValidateGridSample(const TensorView& x, const TensorView& grid, const MutableTensorView* y,
                          GridSampleGeometry* geometry, bool shapes_only = false);

// Mode and padding hold values of their enums (a cast integer may not), threads as
// ValidateThreads; messages start with `op`.
Status ValidateGridSampleOptions(const GridSampleOptions& options, const char* op = "GridSample");

// A thread count of 0 or more; a host only with its parallel-for.
Status ValidateThreads(const Threads& threads, const char* op);

// The image warps' fill (warp_affine.h): null, or with zeros padding `channels` finite values
// that X's compute type holds.
Status ValidateFill(const GridSampleOptions& options, const double* fill, DType x, int64_t channels,
                    const char* op);

// WarpFlow: x (N, C, H, W), flow (N, 2, Ho, Wo) float32, y (N, C, Ho, Wo) of x's dtype, no
// overlaps. Fills `geometry` as for GridSample of rank 2.
Status ValidateWarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                        GridSampleGeometry* geometry);

// Checks theta, size and (when non-null) grid. Fills `geometry` on success.
Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView* grid, AffineGridGeometry* geometry);

// GridSampleChannelsLast: x (N, H, W, C), grid (N, Ho, Wo, 2) of a float dtype, y
// (N, Ho, Wo, C) of x's dtype, no overlaps. Fills `geometry` on success.
Status ValidateGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                      const MutableTensorView& y, ChannelsLastGeometry* geometry);

// WarpAffine: x (N, H, W, C), theta (N, 2, 3) float32 or float64, y (N, Ho, Wo, C) of x's
// dtype (Ho, Wo free), no overlaps. Fills `geometry` on success.
Status ValidateWarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                          ChannelsLastGeometry* geometry);

// WarpPerspective: the same with H (N, 3, 3) float32 or float64 in theta's place.
Status ValidateWarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                               ChannelsLastGeometry* geometry);

// A band of a warp's output (WarpAffineRows, WarpPerspectiveRows): `rows` placing Y, whose rows
// `geometry` holds, in an output rows.height high; updates out_h and row0.
Status ValidateOutputRows(const char* op, const OutputRows& rows, ChannelsLastGeometry* geometry);

// Remap: x (N, H, W, C), float32 pixel maps: map_x (N, Ho, Wo, 2) interleaved when map_y is
// null, else planes map_x and map_y (N, Ho, Wo); y (N, Ho, Wo, C) of x's dtype; no overlaps.
// `flow`: the same for WarpFlowChannelsLast, whose maps are a flow (messages name them so).
Status ValidateRemap(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                     const MutableTensorView& y, ChannelsLastGeometry* geometry, bool flow = false);

// A whole Remap or WarpFlowChannelsLast call (`flow`): its options, tensors and fill.
Status ValidateRemapCall(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                         const MutableTensorView& y, const GridSampleOptions& options,
                         const double* fill, bool flow, ChannelsLastGeometry* geometry);

}  // namespace gridsample

#endif  // GRIDSAMPLE_VALIDATE_H_
