// Public C++ API of the image warps' matrices: the spaces a matrix is written in (DESIGN.md
// section 9), the pixel homography a warp samples by, and OpenCV's matrix builders.
#ifndef GRIDSAMPLE_MATRICES_H_
#define GRIDSAMPLE_MATRICES_H_

#include <cstdint>

#include "gridsample/types.h"

namespace gridsample {

// The space a warp's matrix is written in.
enum class MatrixSpace : uint8_t {
  // AffineGrid's: from the output's normalised coordinates to the input's (-1 and 1 at each
  // side's edges, or at its outer pixels' centres with align_corners).
  kNormalized = 0,
  // OpenCV's pixel space (pixel centres at integer coordinates, the origin at the top-left
  // pixel's centre), from the input (source) to the output (destination): inverted first, as
  // cv.warpAffine and cv.warpPerspective invert theirs.
  kPixel = 1,
  // Pixel space from the output to the input, taken as it is (OpenCV's WARP_INVERSE_MAP).
  kPixelInverse = 2,
};

// The sides of a warp's input X (in_h x in_w) and of its whole output (out_h x out_w).
struct WarpSides {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
};

// The homography H (nine values, row-major) from output pixels to input pixels that a warp
// samples by (WarpPerspective's), for the matrix `m` of `rows` x 3 values, row-major: rows 2, an
// affine matrix, taken as the homography with bottom row (0, 0, 1); rows 3, a homography.
//   kNormalized:   H = P_in * m * N_out, with N_out the output's pixels to its normalised
//                  coordinates and P_in the input's normalised coordinates to its pixels
//                  (AffineGrid's lines, with align_corners; a 1-pixel side with align_corners
//                  has every coordinate at pixel 0).
//   kPixel:        the inverse of m, computed from its adjugate and determinant in
//                  mantissa-and-exponent arithmetic, so that an inverse within double's range is
//                  found however large or small the determinant and the products on the way
//                  (1e-200 I has determinant 1e-600).
//   kPixelInverse: m.
// Errors (InvalidArgument, the message naming m as `name`): with kPixel, an entry of m that is
// not finite, a singular m, or an inverse with entries beyond double's range. In every space
// finite or not entries pass otherwise (a non-finite H samples nothing: the warps' fill).
Status PixelHomography(const double* m, int rows, MatrixSpace space, const WarpSides& sides,
                       bool align_corners, double h[9], const char* name = "M");

// The 2x3 matrix (six values, row-major) that rotates by `angle_deg` degrees about (cx, cy) and
// scales by `scale`, as cv.getRotationMatrix2D: a positive angle turns the picture
// counter-clockwise on screen (y down); cos and sin are exact at multiples of 90 degrees. For
// WarpAffine with MatrixSpace::kPixel. InvalidArgument for a non-finite argument, or where an
// entry lies beyond double's range.
Status RotationMatrix(double cx, double cy, double angle_deg, double scale, double m[6]);

// The 3x3 homography (nine values, row-major) taking the four points `src` onto the four points
// `dst` (x0, y0, x1, y1, ... each), as cv.getPerspectiveTransform: h8 = 1; or where h8 is 0 (the
// origin maps to infinity) the matrix of norm 1 that OpenCV 4.12 returns there, its sign chosen
// so that w > 0 at the src points. For WarpPerspective with MatrixSpace::kPixel.
// InvalidArgument for a non-finite coordinate, three points of a quad on one line, or src and dst
// so far apart in scale that an entry lies beyond double's range.
Status PerspectiveTransform(const double src[8], const double dst[8], double h[9]);

}  // namespace gridsample

#endif  // GRIDSAMPLE_MATRICES_H_
