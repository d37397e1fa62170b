// Public C++ API for channels-last (NHWC) images: 2-D GridSample and the fused affine warp.
#ifndef GRIDSAMPLE_WARP_AFFINE_H_
#define GRIDSAMPLE_WARP_AFFINE_H_

#include "gridsample/grid_sample.h"
#include "gridsample/types.h"

namespace gridsample {

// Y = GridSample(X, grid) on interleaved images, e.g. RGBA pixels: the same semantics as
// GridSample (DESIGN.md section 2) with the channel axis last.
//   x:    (N, H, W, C), any C >= 0; every dtype GridSample takes.
//   grid: (N, Ho, Wo, 2), (x, y) normalised coordinates; float32, float64, float16 or
//         bfloat16.
//   y:    (N, Ho, Wo, C), same dtype as x; must not overlap x or grid.
// Equals transposing X to (N, C, H, W), GridSample, and transposing Y back, bit for bit,
// except uint8 bilinear: its fixed-point blend (inside the image) may differ by 1 level.
// Validates everything first; on error nothing is written.
Status GridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                              const MutableTensorView& y, const GridSampleOptions& options = {});

// Y = GridSample(X, AffineGrid(theta, (N, C, Ho, Wo))) on interleaved images without
// materialising the grid: output pixel (i, j) samples X at theta * [x_j, y_i, 1], with
// AffineGrid's base coordinates (PyTorch's affine_grid: pixel centres spread over [-1, 1]
// or, with align_corners, corner centres at -1 and 1; a size-1 axis gives 0).
// options.align_corners applies to both the base grid and the sampling, as when the two
// operators are chained with one attribute value.
//   x:     (N, H, W, C), any C >= 0; every dtype GridSample takes.
//   theta: (N, 2, 3), float32 or float64 (normalised, as AffineGrid's).
//   y:     (N, Ho, Wo, C), same dtype as x; its Ho and Wo are the output size.
// Results equal AffineGrid + GridSample on the same data: the grid value each pixel uses
// is the one AffineGrid stores (computed in double and, for float32 theta, rounded once to
// float32), so outputs are identical to the two-operator chain, bit for bit, except uint8
// bilinear: its fixed-point blend (inside the image) may differ by 1 level.
// Validates everything first; on error nothing is written.
Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options = {});

}  // namespace gridsample

#endif  // GRIDSAMPLE_WARP_AFFINE_H_
