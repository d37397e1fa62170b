// AffineGrid's rules, one home for the reference, the fast AffineGrid and the affine warp's
// source. The base coordinate: pixel i of an axis of size s lies at (2i - (s - 1)) / d, with
// d = s - 1 (align_corners: the centres spread over [-1, 1]) or d = s (over
// [-1 + 1/s, 1 - 1/s]); a size-1 axis gives 0. A coordinate's value: theta's row times the base
// point.
#ifndef GRIDSAMPLE_RULES_AFFINE_BASE_H_
#define GRIDSAMPLE_RULES_AFFINE_BASE_H_

#include <cstdint>

namespace gridsample {

// The rule's divisor d; 0 for a size-1 axis.
inline int64_t AffineBaseDivisor(int64_t s, bool align_corners) {
  if (s == 1) return 0;
  return align_corners ? s - 1 : s;
}

// The base coordinate of pixel i, one rounding (the value AffineGrid's sums take). Not inlined:
// inlined, clang vectorises the column loops that call it: 7 to 8 KB more per .wasm for code that
// runs once per column.
[[gnu::noinline]] inline double AffineBaseCoordinate(int64_t i, int64_t s, bool align_corners) {
  const int64_t d = AffineBaseDivisor(s, align_corners);
  if (d == 0) return 0.0;
  return static_cast<double>(2 * i - (s - 1)) / static_cast<double>(d);
}

// The same as a line, base(i) = slope * i + offset, each term rounded once (exact in real
// numbers; the warp's stepped pixel positions, sources/affine_source-inl.h).
struct AffineBaseLine {
  double slope, offset;
};
inline AffineBaseLine AffineBaseLineOf(int64_t s, bool align_corners) {
  const int64_t d = AffineBaseDivisor(s, align_corners);
  if (d == 0) return {0.0, 0.0};
  return {2.0 / static_cast<double>(d), -static_cast<double>(s - 1) / static_cast<double>(d)};
}

// AffineGrid's value of one coordinate: theta's row (rank + 1 entries) times the homogeneous
// base point (x, y[, z], 1), summed in double from 0 in that order (sources/affine_sums-inl.h
// is its vector form, equal bit for bit).
inline double AffineValue(const double* theta_row, const double* base, int rank) {
  double v = 0.0;
  for (int j = 0; j <= rank; ++j) v += theta_row[j] * base[j];
  return v;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_AFFINE_BASE_H_
