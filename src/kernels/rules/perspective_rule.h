// WarpPerspective's coordinate rule, in one place for the reference and the fast source: the
// pixel homography scaled by a power of two, its terms per output row, and each output pixel's
// input pixel position in float32. Plain scalar code, callable from every Highway target and
// from the reference.
#ifndef GRIDSAMPLE_RULES_PERSPECTIVE_RULE_H_
#define GRIDSAMPLE_RULES_PERSPECTIVE_RULE_H_

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gridsample {

// H (3x3, row-major) takes output pixel (j, i, 1) to the point (X, Y, W): input pixel
// (X / W, Y / W), pixel centres at integer coordinates (pixel_rule.h: the planner samples
// these positions as they are; align_corners only chooses reflection's lines). Its rows x, y, w
// here are H's times the power of two that brings the largest entry of its w row into
// [0.5, 1): the same map, exactly (H and 2^k H agree on every point and on the sign of W), whose
// denominators neither overflow float32 nor vanish in it (H = 1e300 I is the identity).
struct PerspectiveMap {
  double x[3], y[3], w[3];
};

inline PerspectiveMap PerspectiveMapOf(const double* h) {
  double largest = 0.0;
  for (int k = 6; k < 9; ++k) largest = std::fabs(h[k]) > largest ? std::fabs(h[k]) : largest;
  int exponent = 0;  // w row non-finite or zero: unscaled (it samples nothing anyway)
  if (largest > 0.0 && largest <= DBL_MAX) std::frexp(largest, &exponent);
  PerspectiveMap m;
  for (int k = 0; k < 3; ++k) {
    m.x[k] = std::ldexp(h[k], -exponent);
    m.y[k] = std::ldexp(h[3 + k], -exponent);
    m.w[k] = std::ldexp(h[6 + k], -exponent);
  }
  return m;
}

// A term as a float32: finite values kept within +-2^100, so that sums of a row's products stay
// finite (a huge finite position follows the padding rule; beyond 2^23 pixels every value pads
// alike but under reflection, where float32 positions that far are roundings anyway); non-finite
// ones stay non-finite (a non-finite H samples nothing). WithinTermLimit is the value before
// its rounding (api/warp_tables.cc keeps the WebGPU affine warp's float32 pairs within it too).
constexpr double kPerspectiveTermLimit = 0x1p100;
inline double WithinTermLimit(double v) {
  if (v > kPerspectiveTermLimit && v <= DBL_MAX) v = kPerspectiveTermLimit;
  if (v < -kPerspectiveTermLimit && v >= -DBL_MAX) v = -kPerspectiveTermLimit;
  return v;
}
inline float PerspectiveTerm(double v) { return static_cast<float>(WithinTermLimit(v)); }

// The float32 factors of one output row i: per pixel j, n = col * float(j) + row for each of
// x, y and w (col the map's first column as a PerspectiveTerm, row = m[1] * i + m[2] in double,
// then a PerspectiveTerm).
struct PerspectiveTerms {
  float col_x, col_y, col_w;
  float row_x, row_y, row_w;
};

inline PerspectiveTerms PerspectiveRowTerms(const PerspectiveMap& m, int64_t i) {
  const double di = static_cast<double>(i);
  return PerspectiveTerms{PerspectiveTerm(m.x[0]),
                          PerspectiveTerm(m.y[0]),
                          PerspectiveTerm(m.w[0]),
                          PerspectiveTerm(m.x[1] * di + m.x[2]),
                          PerspectiveTerm(m.y[1] * di + m.y[2]),
                          PerspectiveTerm(m.w[1] * di + m.w[2])};
}

// n / w in float32, a quotient that overflows kept at +-FLT_MAX (the point is finite and far:
// it follows the padding rule), then n - n added: NaN where n is not finite (it samples 0). The
// fast source computes the same per lane, in this order.
inline float PerspectiveQuotient(float n, float w) {
  float q = n / w;
  q = q < -FLT_MAX ? -FLT_MAX : q;
  q = q > FLT_MAX ? FLT_MAX : q;
  return q + (n - n);
}

// Output pixel j's input pixel position on its row, in float32 (each product rounded, then
// each sum, then the quotient; the fast source computes the same per lane): (nx / nw, ny / nw)
// when 0 < nw <= FLT_MAX, else NaN for both: a point behind the camera, at infinity or not
// finite samples 0 (a non-finite coordinate's rule).
inline void PerspectiveCoordinates(const PerspectiveTerms& t, int64_t j, float* x, float* y) {
  const float fj = static_cast<float>(j);
  const float px = t.col_x * fj, py = t.col_y * fj, pw = t.col_w * fj;
  const float nx = px + t.row_x, ny = py + t.row_y, nw = pw + t.row_w;
  if (nw > 0.0f && nw <= FLT_MAX) {
    *x = PerspectiveQuotient(nx, nw);
    *y = PerspectiveQuotient(ny, nw);
  } else {
    *x = *y = std::numeric_limits<float>::quiet_NaN();
  }
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_RULES_PERSPECTIVE_RULE_H_
