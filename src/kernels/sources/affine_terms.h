// AffineGrid's values separably, in the reference's order: the first term of each output
// column and the terms of a row, computed once and added per value (affine_sums-inl.h), for the
// fast AffineGrid and the affine coordinate source. Plain scalar code, callable from every
// target and from the HWY_ONCE parts.
#ifndef GRIDSAMPLE_SOURCES_AFFINE_TERMS_H_
#define GRIDSAMPLE_SOURCES_AFFINE_TERMS_H_

#include <cstdint>

#include "rules/affine_base.h"

namespace gridsample {
namespace fast {

// a[j * stride] = 0 + t * base(j0 + j) for j < count, and 0 up to `padded` (so that the last
// vector reads defined values): the reference's first term, once per column.
inline void AffineColumnTerms(double t, int64_t j0, int64_t count, int64_t padded, int64_t size,
                              bool align, double* a, int stride = 1) {
  for (int64_t j = 0; j < count; ++j) {
    a[j * stride] = 0.0 + t * AffineBaseCoordinate(j0 + j, size, align);
  }
  for (int64_t j = count; j < padded; ++j) a[j * stride] = 0.0;
}

// The terms after the column's of each coordinate r of a row (y = by, z = bz), in the
// reference's order: t[r][1] * y, [t[r][2] * z,] t[r][kRank]. th: kRank rows of kRank + 1.
template <int kRank>
inline void AffineRowTerms(const double* th, double by, double bz, double (*terms)[kRank]) {
  for (int r = 0; r < kRank; ++r) {
    const double* t = th + r * (kRank + 1);
    terms[r][0] = t[1] * by;
    if (kRank == 3) terms[r][1] = t[2] * bz;
    terms[r][kRank - 1] = t[kRank];
  }
}

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_SOURCES_AFFINE_TERMS_H_
