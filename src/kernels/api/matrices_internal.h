// PixelHomography (gridsample/matrices.h) for the warps that call it on each item's matrix, its
// messages starting with their operator's name.
#ifndef GRIDSAMPLE_API_MATRICES_INTERNAL_H_
#define GRIDSAMPLE_API_MATRICES_INTERNAL_H_

#include "gridsample/matrices.h"

namespace gridsample {

// PixelHomography for `op`, m and h not null and rows 2 or 3.
Status PixelHomographyOf(const char* op, const double* m, int rows, MatrixSpace space,
                         const WarpSides& sides, bool align_corners, double h[9], const char* name);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_MATRICES_INTERNAL_H_
