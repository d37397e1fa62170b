// WarpPerspective's coordinate rule, in one place for the reference and the fast source: the
// pixel homography folded with X's normalisation (double), its terms per output row, and each
// output pixel's normalised coordinates in float32. Plain scalar code, callable from every
// Highway target and from the reference.
#ifndef GRIDSAMPLE_PERSPECTIVE_RULE_H_
#define GRIDSAMPLE_PERSPECTIVE_RULE_H_

#include <cfloat>
#include <cstdint>
#include <limits>

namespace gridsample {

// H (3x3, row-major) takes output pixel (j, i, 1) to the point (X, Y, W): input pixel
// (X / W, Y / W), pixel centres at integer coordinates. Folded with the normalisation of X's
// axes (DESIGN.md section 2, inverted) into rows x, y, w such that the normalised coordinates
// are (x . p) / (w . p) and (y . p) / (w . p):
//   align_corners 0: g = (2 u + 1) / S - 1;  1: g = 2 u / (S - 1) - 1, and 0 when S = 1.
// A point maps to the same input pixel either way; align_corners only chooses reflection's
// lines (the pixel edges, or the outer pixels' centres).
struct PerspectiveMap {
  double x[3], y[3], w[3];
};

inline PerspectiveMap FoldPerspective(const double* h, int64_t in_w, int64_t in_h, bool align) {
  PerspectiveMap m;
  const auto fold = [&](const double* row, int64_t size, double* out) {
    double scale = 0.0, offset = 0.0;  // align_corners with S = 1: every point samples 0
    if (!align) {
      scale = 2.0 / static_cast<double>(size);
      offset = 1.0 / static_cast<double>(size) - 1.0;
    } else if (size > 1) {
      scale = 2.0 / static_cast<double>(size - 1);
      offset = -1.0;
    }
    for (int k = 0; k < 3; ++k) out[k] = scale * row[k] + offset * h[6 + k];
  };
  fold(h, in_w, m.x);
  fold(h + 3, in_h, m.y);
  for (int k = 0; k < 3; ++k) m.w[k] = h[6 + k];
  return m;
}

// The float32 factors of one output row i: per pixel j, n = col * float(j) + row for each of
// x, y and w (col the map's first column rounded to float, row = m[1] * i + m[2] in double,
// rounded once).
struct PerspectiveTerms {
  float col_x, col_y, col_w;
  float row_x, row_y, row_w;
};

inline PerspectiveTerms PerspectiveRowTerms(const PerspectiveMap& m, int64_t i) {
  const double di = static_cast<double>(i);
  return PerspectiveTerms{static_cast<float>(m.x[0]),
                          static_cast<float>(m.y[0]),
                          static_cast<float>(m.w[0]),
                          static_cast<float>(m.x[1] * di + m.x[2]),
                          static_cast<float>(m.y[1] * di + m.y[2]),
                          static_cast<float>(m.w[1] * di + m.w[2])};
}

// Output pixel j's normalised coordinates on its row, in float32 (each product rounded, then
// each sum, then the quotient; the fast source computes the same per lane): (nx / nw, ny / nw)
// when 0 < nw <= FLT_MAX, else NaN for both: a point behind the camera, at infinity or not
// finite samples 0 (a non-finite coordinate's rule).
inline void PerspectiveCoordinates(const PerspectiveTerms& t, int64_t j, float* gx, float* gy) {
  const float fj = static_cast<float>(j);
  const float px = t.col_x * fj, py = t.col_y * fj, pw = t.col_w * fj;
  const float nx = px + t.row_x, ny = py + t.row_y, nw = pw + t.row_w;
  if (nw > 0.0f && nw <= FLT_MAX) {
    *gx = nx / nw;
    *gy = ny / nw;
  } else {
    *gx = *gy = std::numeric_limits<float>::quiet_NaN();
  }
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_PERSPECTIVE_RULE_H_
