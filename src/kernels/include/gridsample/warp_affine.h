// Public C++ API for channels-last (NHWC) images: 2-D GridSample, the fused affine and
// perspective warps, and remap with pixel-coordinate maps.
#ifndef GRIDSAMPLE_WARP_AFFINE_H_
#define GRIDSAMPLE_WARP_AFFINE_H_

#include "gridsample/grid_sample.h"
#include "gridsample/matrices.h"
#include "gridsample/types.h"

namespace gridsample {

// The warps below take an optional `fill`: null, or x's C values (one per channel), the colour
// that zeros padding reads outside X (OpenCV's BORDER_CONSTANT value), per tap: a tap outside X
// contributes fill[c] with its weight, and a point that samples 0 without fill (non-finite, or
// behind the camera) gives fill. Only with Padding::kZeros; every value finite (within
// float32's range unless x is float64); it must not overlap y. The result is within float32
// rounding of that per-tap sum (every path, fast or reference, adds fill * (1 - the weights
// inside X, in order) once); integer outputs within 1 level.

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
// With `space` kPixel or kPixelInverse the matrix (named M) is OpenCV's 2x3 matrix in pixel
// space (cv.warpAffine, inverted first unless kPixelInverse): the warp is then WarpPerspective
// by PixelHomography's H (matrices.h), its bottom row (0, 0, 1), and options.align_corners only
// chooses reflection's lines, as there. Validates everything first; on error nothing is written.
Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options = {}, const double* fill = nullptr,
                  MatrixSpace space = MatrixSpace::kNormalized);

// Y = X warped by the homography H on interleaved images, without materialising a grid:
// output pixel (j, i) samples X at input pixel (X / W, Y / W), (X, Y, W) = H * [j, i, 1]
// (pixel space, pixel centres at integer coordinates: OpenCV's warpPerspective with
// WARP_INVERSE_MAP). A point with W <= 0 (behind the camera), W infinite, or a non-finite
// coordinate samples 0 (or fill), in every mode and padding. options.align_corners does not
// move any point; it only chooses reflection's lines: the pixel edges (0, OpenCV's
// BORDER_REFLECT) or the outer pixels' centres (1, BORDER_REFLECT_101).
//   x: (N, H, W, C), any C >= 0; every dtype GridSample takes.
//   h: (N, 3, 3), float32 or float64, row-major.
//   y: (N, Ho, Wo, C), same dtype as x; its Ho and Wo are the output size.
// `space` says how h is written (matrices.h): kPixelInverse (the default) as above; kPixel from
// input to output pixels (cv.warpPerspective without WARP_INVERSE_MAP: inverted first, an error
// where it cannot be); kNormalized between the normalised coordinates of output and input
// (AffineGrid's, with options.align_corners, which then also chooses reflection's lines). Each
// item's H is PixelHomography's.
// Positions are computed in float32 (src/kernels/rules/perspective_rule.h), H first scaled by a
// power of two (any scale of H works): each a quotient of two float sums, within a few float32 ulps
// of the exact map's, and sampled as they are (no normalised coordinate), so an H with bottom row
// (0, 0, 1) is OpenCV's pixel-space warpAffine and positions exact in binary sample exactly.
// Results equal Remap at those positions, bit for bit. Validates everything first; on error
// nothing is written.
Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options = {}, const double* fill = nullptr,
                       MatrixSpace space = MatrixSpace::kPixelInverse);

// A horizontal band of a warp's output, for callers that split one output among workers (the
// JavaScript worker pool does): Y holds rows [begin, begin + Y's Ho) of an output `height` rows
// high, and each of its rows is the same bytes as that row of the whole output.
struct OutputRows {
  int64_t height = 0;  // the whole output's Ho
  int64_t begin = 0;   // the first row Y holds
};

// WarpAffine and WarpPerspective computing only the band `rows` of their output into y
// (N, Ho', Wo, C), Ho' the band's rows; rows.begin + Ho' must not pass rows.height.
Status WarpAffineRows(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                      const OutputRows& rows, const GridSampleOptions& options = {},
                      const double* fill = nullptr, MatrixSpace space = MatrixSpace::kNormalized);
Status WarpPerspectiveRows(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                           const OutputRows& rows, const GridSampleOptions& options = {},
                           const double* fill = nullptr,
                           MatrixSpace space = MatrixSpace::kPixelInverse);

// Y = X sampled at pixel coordinates given per output pixel, as OpenCV's remap with float
// maps: output pixel (i, j) samples X at (map_x(i, j), map_y(i, j)), pixel centres at integer
// coordinates; every mode and padding (zeros: BORDER_CONSTANT 0, border: BORDER_REPLICATE,
// reflection: BORDER_REFLECT, or BORDER_REFLECT_101 with options.align_corners, which moves
// no point). A non-finite coordinate samples 0 (or fill). No normalised grid is built: the
// positions are sampled as they are (src/kernels/rules/pixel_rule.h), so weights exact in binary
// stay exact (OpenCV's Imgproc_Remap.issue_23562). uint8 bilinear inside the image takes a
// fixed-point blend, which may differ from the float blend by 1 level.
//   x:   (N, H, W, C), any C >= 0; every dtype GridSample takes.
//   map: (N, Ho, Wo, 2) float32, (x, y) per output pixel (OpenCV's CV_32FC2 map), or
//   map_x, map_y: (N, Ho, Wo) float32 each (CV_32FC1 maps).
//   y:   (N, Ho, Wo, C), same dtype as x.
// Validates everything first; on error nothing is written.
Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options = {}, const double* fill = nullptr);
Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options = {},
             const double* fill = nullptr);

// Y = X warped backward by a flow field in pixels on interleaved images (RAFT's and RIFE's
// convention, out(p) = in(p + flow(p))): Remap at the positions (j + flow_x(i, j),
// i + flow_y(i, j)), each sum rounded to float32 once (pixel_rule.h's FlowPosition, as WarpFlow
// on NCHW tensors); every mode, padding and dtype, and fill, as Remap.
//   flow: (N, Ho, Wo, 2) float32, (dx, dy) per output pixel (OpenCV's optical-flow layout), or
//   flow_x, flow_y: (N, Ho, Wo) float32 each (the planes of a (N, 2, Ho, Wo) flow, per item).
// Validates everything first; on error nothing is written.
Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                            const GridSampleOptions& options = {}, const double* fill = nullptr);
Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x, const TensorView& flow_y,
                            const MutableTensorView& y, const GridSampleOptions& options = {},
                            const double* fill = nullptr);

}  // namespace gridsample

#endif  // GRIDSAMPLE_WARP_AFFINE_H_
