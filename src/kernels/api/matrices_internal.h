// PixelHomography (gridsample/matrices.h) for the warps that call it on each item's matrix, its
// messages starting with their operator's name.
#ifndef GRIDSAMPLE_API_MATRICES_INTERNAL_H_
#define GRIDSAMPLE_API_MATRICES_INTERNAL_H_

#include "gridsample/matrices.h"

namespace gridsample {

// How the C++ API's messages say "give the output-to-input map instead"; a caller of another
// language (the JS bindings) passes its own words for that option.
inline constexpr const char* kPixelInverseWords = "MatrixSpace::kPixelInverse";

// PixelHomography, its messages naming the output-to-input option `inverse_option`.
Status PixelHomographyIn(const double* m, int rows, MatrixSpace space, const WarpSides& sides,
                         bool align_corners, double h[9], const char* name,
                         const char* inverse_option);

// PixelHomographyIn for `op`, m and h not null and rows 2 or 3.
Status PixelHomographyOf(const char* op, const double* m, int rows, MatrixSpace space,
                         const WarpSides& sides, bool align_corners, double h[9], const char* name,
                         const char* inverse_option);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_MATRICES_INTERNAL_H_
