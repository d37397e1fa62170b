// WarpAffine's theta as a coordinate source, scalar form (the references read it through
// reference/points.h; affine_source-inl.h is the vector form the fast paths plan from).
#ifndef GRIDSAMPLE_SOURCES_AFFINE_SOURCE_H_
#define GRIDSAMPLE_SOURCES_AFFINE_SOURCE_H_

#include <cstdint>

#include "gridsample/types.h"
#include "problem/problem.h"
#include "rules/affine_base.h"
#include "rules/dtype_traits.h"

namespace gridsample {

// The coordinates (y, x) of output points [p0, p0 + count) of batch item n of an out_h x out_w
// output from theta (N, 2, 3), float32 or float64: AffineGrid's values of each pixel, computed
// and rounded as AffineGrid computes them (theta's dtype). Normalised.
inline void AffinePoints(const TensorView& theta, int64_t out_h, int64_t out_w, bool align,
                         int64_t n, int64_t p0, int64_t count, double* coords) {
  const bool f64 = theta.dtype == DType::kFloat64;
  double t[6];
  LoadMatrix(theta.dtype, theta.data, n, 6, t);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = (p0 + k) / out_w, j = (p0 + k) % out_w;
    const double base[3] = {AffineBaseCoordinate(j, out_w, align),
                            AffineBaseCoordinate(i, out_h, align), 1.0};  // (x, y, 1)
    for (int r = 0; r < 2; ++r) {
      const double v = AffineValue(t + 3 * r, base, 2);
      coords[2 * k + 1 - r] = f64 ? v : static_cast<double>(static_cast<float>(v));
    }
  }
}

// What the channels-last kernels read of it (drivers/pixels_driver.cc's Covers): theta as
// LoadMatrix reads it.
inline bool PixelsKernelTakes(const ChannelsLastGeometry&, const AffineAt& s) {
  return IsMatrixDType(s.theta.dtype);
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_SOURCES_AFFINE_SOURCE_H_
