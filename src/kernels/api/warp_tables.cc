// The WebGPU warps' coordinate tables (api/warp_tables.h) from the library's rules: the affine
// source's terms and points and the perspective source's row terms, as the CPU paths make them.
#include "api/warp_tables.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "rules/coordinate_rule.h"
#include "rules/perspective_rule.h"
#include "sources/affine_source.h"
#include "sources/affine_terms.h"

namespace gridsample {
namespace {

// Reflection reduces a float64 theta's AffineGrid values modulo 4 before rounding them, keeping
// bits below the pairs' ~48: past this bound on |value| a pair's error (about 2^-48 |value|)
// would change a rounded result once in 2^17 or more often (at 3e8, 1 pixel in 60 did; past
// 2^54, most), so the values are computed per pixel instead (kAffinePoints).
constexpr double kPairsExactBelow = 0x1p8;

// A double as a double-float pair (hi, lo) of float32s, kept within the term limit (a value that
// far pads, and sums of such terms stay finite in float32): the WGSL df_add's operands
// (js/webgpu/wgsl_rules.mjs DOUBLE_FLOAT).
void Pair(double v, float* out) {
  const double c = WithinTermLimit(v);
  const float hi = static_cast<float>(c);
  out[0] = hi;
  out[1] = std::isfinite(hi) ? static_cast<float>(c - static_cast<double>(hi)) : 0.0f;
}

// kAffineTerms: the reference's first term 0 + t_k0 x_j per column (AffineColumnTerms), then the
// row terms t_k1 y_i per row and the constants t_k2 (AffineRowTerms), each as a pair.
void FillAffineTerms(const double* t, int64_t out_h, int64_t out_w, bool align, float* values,
                     float* source) {
  for (int64_t j = 0; j < out_w; ++j) {
    for (int k = 0; k < 2; ++k) {
      double a;
      fast::AffineColumnTerms(t[3 * k], j, 1, 1, out_w, align, &a);
      Pair(a, values + (2 * j + k) * 2);
    }
  }
  float* rows = values + 4 * out_w;
  double terms[2][2];
  for (int64_t i = 0; i < out_h; ++i) {
    fast::AffineRowTerms<2>(t, AffineBaseCoordinate(i, out_h, align), 0.0, terms);
    for (int k = 0; k < 2; ++k) Pair(terms[k][0], rows + (2 * i + k) * 2);
  }
  fast::AffineRowTerms<2>(t, 0.0, 0.0, terms);
  Pair(terms[0][1], source);
  Pair(terms[1][1], source + 2);
}

// kAffinePoints: AffinePoints' float64 values of every output pixel, as GridSample takes them
// under reflection (CoordinateAsFloat), interleaved (x, y); a few points at a time.
void FillAffinePoints(const double* t, int64_t out_h, int64_t out_w, bool align, float* values) {
  const int64_t shape[3] = {1, 2, 3};
  const TensorView theta{t, DType::kFloat64, shape, 3};
  constexpr int64_t kChunk = 256;
  double coords[2 * kChunk];  // (y, x) per point
  const int64_t count = out_h * out_w;
  for (int64_t p0 = 0; p0 < count; p0 += kChunk) {
    const int64_t n = count - p0 < kChunk ? count - p0 : kChunk;
    AffinePoints(theta, out_h, out_w, align, 0, p0, n, coords);
    for (int64_t k = 0; k < n; ++k) {
      values[2 * (p0 + k)] = CoordinateAsFloat(coords[2 * k + 1], Padding::kReflection);
      values[2 * (p0 + k) + 1] = CoordinateAsFloat(coords[2 * k], Padding::kReflection);
    }
  }
}

// kPerspectiveTerms: PerspectiveMapOf's H, then PerspectiveRowTerms per output row.
void FillPerspectiveTerms(const double* h, int64_t out_h, float* values, float* source) {
  const PerspectiveMap m = PerspectiveMapOf(h);
  for (int64_t i = 0; i < out_h; ++i) {
    const PerspectiveTerms row = PerspectiveRowTerms(m, i);
    values[3 * i] = row.row_x;
    values[3 * i + 1] = row.row_y;
    values[3 * i + 2] = row.row_w;
  }
  const PerspectiveTerms columns = PerspectiveRowTerms(m, 0);
  source[0] = columns.col_x;
  source[1] = columns.col_y;
  source[2] = columns.col_w;
  source[3] = 0.0f;
}

}  // namespace

WarpTable AffineWarpTable(const double* theta, DType dtype, Padding padding) {
  if (dtype != DType::kFloat64 || !ReducesFarCoordinates(padding)) return WarpTable::kAffineTerms;
  // A bound on |value| (base coordinates lie in [-1, 1]); NaN compares false.
  for (int r = 0; r < 2; ++r) {
    const double* t = theta + 3 * r;
    if (std::fabs(t[0]) + std::fabs(t[1]) + std::fabs(t[2]) >= kPairsExactBelow) {
      return WarpTable::kAffinePoints;
    }
  }
  return WarpTable::kAffineTerms;
}

int64_t WarpTableFloats(WarpTable table, int64_t out_h, int64_t out_w) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (table) {
    case WarpTable::kAffineTerms: return out_w + out_h > kMax / 4 ? kMax : 4 * (out_w + out_h);
    case WarpTable::kAffinePoints:
      return out_w != 0 && out_h > kMax / 2 / out_w ? kMax : 2 * out_w * out_h;
    case WarpTable::kPerspectiveTerms: return out_h > kMax / 3 ? kMax : 3 * out_h;
  }
  return 0;
}

void FillWarpTable(WarpTable table, const double* matrix, int64_t out_h, int64_t out_w, bool align,
                   float* values, float* source) {
  switch (table) {
    case WarpTable::kAffineTerms:
      FillAffineTerms(matrix, out_h, out_w, align, values, source);
      return;
    case WarpTable::kAffinePoints:
      FillAffinePoints(matrix, out_h, out_w, align, values);
      for (int k = 0; k < 4; ++k) source[k] = 0.0f;
      return;
    case WarpTable::kPerspectiveTerms: FillPerspectiveTerms(matrix, out_h, values, source); return;
  }
}

}  // namespace gridsample
