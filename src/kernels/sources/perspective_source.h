// WarpPerspective's H as a coordinate source, scalar form (the references read it through
// reference/points.h; perspective_source-inl.h is the vector form the fast paths plan from).
#ifndef GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_H_
#define GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_H_

#include <cstdint>

#include "gridsample/types.h"
#include "planner/limits.h"
#include "problem/problem.h"
#include "rules/dtype_traits.h"
#include "rules/perspective_rule.h"

namespace gridsample {

// The positions (y, x) of output points [p0, p0 + count) of batch item n of an output out_w
// wide from H (N, 3, 3), float32 or float64, by perspective_rule.h. Pixels.
inline void PerspectivePoints(const TensorView& h, int64_t out_w, int64_t n, int64_t p0,
                              int64_t count, double* coords) {
  double m[9];
  LoadMatrix(h.dtype, h.data, n, 9, m);
  const PerspectiveMap map = PerspectiveMapOf(m);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = (p0 + k) / out_w, j = (p0 + k) % out_w;
    float x, y;
    PerspectiveCoordinates(PerspectiveRowTerms(map, i), j, &x, &y);
    coords[2 * k] = static_cast<double>(y);
    coords[2 * k + 1] = static_cast<double>(x);
  }
}

// What the channels-last kernels read of it (drivers/pixels_driver.cc's Covers): H as
// LoadMatrix reads it; the output's columns as exact int32 lanes.
inline bool PixelsKernelTakes(const ChannelsLastGeometry& geo, const PerspectiveAt& s) {
  return IsMatrixDType(s.h.dtype) && geo.out_w <= fast::kMaxPerspectiveWidth;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_SOURCES_PERSPECTIVE_SOURCE_H_
