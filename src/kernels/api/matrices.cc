// The image warps' matrices (gridsample/matrices.h): a matrix in its space to the pixel
// homography a warp samples by (normalised conjugation, pixel-space inversion), and OpenCV's
// rotation and four-point perspective builders, in double with mantissa-and-exponent sums
// wherever an intermediate product could leave double's range.
#include "gridsample/matrices.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "api/matrices_internal.h"

namespace gridsample {

namespace {

// A number as m * 2^e (m 0, or within [0.5, 1) in magnitude), so that a product of several
// factors or a sum of such products is rounded into a double only at the end.
struct Wide {
  double m;
  int64_t e;
};

// x * 2^e for any integer e (std::ldexp takes an int).
double Scale(double x, int64_t e) {
  return std::ldexp(x, static_cast<int>(std::clamp<int64_t>(e, INT_MIN / 2, INT_MAX / 2)));
}

Wide WideOf(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);
  return {m, m == 0.0 ? 0 : e};
}

double ToDouble(const Wide& w) { return Scale(w.m, w.e); }

// The product of `factors`.
Wide Product(std::initializer_list<Wide> factors) {
  Wide p{1.0, 0};
  for (const Wide& f : factors) p = {p.m * f.m, p.e + f.e};
  return p;
}
Wide Product(std::initializer_list<double> factors) {
  Wide p{1.0, 0};
  for (double f : factors) p = Product({p, WideOf(f)});
  return p;
}

// The sum of `terms`, in order, each scaled by the largest term's power of two first.
Wide Sum(std::initializer_list<Wide> terms) {
  bool any = false;
  int64_t top = 0;
  for (const Wide& t : terms) {
    if (t.m != 0.0) top = any ? std::max(top, t.e) : t.e, any = true;
  }
  if (!any) return {0.0, 0};
  double sum = 0.0;
  for (const Wide& t : terms) sum += Scale(t.m, t.e - top);
  const Wide w = WideOf(sum);
  return {w.m, w.m == 0.0 ? 0 : w.e + top};
}

double Quotient(const Wide& a, const Wide& b) { return Scale(a.m / b.m, a.e - b.e); }

// A value as JavaScript prints the ones a message shows: NaN, Infinity, or the shortest %g form
// that reads back as the same double.
std::string NumberString(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char text[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

Status Invalid(const char* op, const std::string& what) {
  return Status::InvalidArgument(std::string(op) + ": " + what);
}

// r = p q for 3x3 matrices, row-major.
void Multiply3(const double* p, const double* q, double* r) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      r[i * 3 + j] = p[i * 3] * q[j] + p[i * 3 + 1] * q[3 + j] + p[i * 3 + 2] * q[6 + j];
    }
  }
}

// The adjugate of a 3x3 matrix, in wide numbers.
void Adjugate3(const double* m, Wide* adj) {
  const double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7],
               i = m[8];
  const auto minor = [](double p, double q, double r, double t) {
    return Sum({Product({p, q}), Product({-r, t})});
  };
  const Wide out[9] = {minor(e, i, f, h), minor(c, h, b, i), minor(b, f, c, e),
                       minor(f, g, d, i), minor(a, i, c, g), minor(c, d, a, f),
                       minor(d, h, e, g), minor(b, g, a, h), minor(a, e, b, d)};
  std::copy(out, out + 9, adj);
}

// The inverse of a finite 3x3 matrix (the adjugate over the determinant), or false when it is
// singular.
bool Invert3(const double* m, double* inverse) {
  Wide adj[9];
  Adjugate3(m, adj);
  const Wide det = Sum({Product({WideOf(m[0]), adj[0]}), Product({WideOf(m[1]), adj[3]}),
                        Product({WideOf(m[2]), adj[6]})});
  if (det.m == 0.0) return false;
  for (int k = 0; k < 9; ++k) inverse[k] = Quotient(adj[k], det);
  return true;
}

// The diagonal map [sx, 0, ox; 0, sy, oy; 0, 0, 1] of a line per side (width, then height).
struct Line {
  double slope, offset;
};
void LineMap(const Line& x, const Line& y, double* m) {
  const double map[9] = {x.slope, 0, x.offset, 0, y.slope, y.offset, 0, 0, 1};
  std::copy(map, map + 9, m);
}
// From a normalised coordinate to a pixel position on a side of `size` pixels, and back.
Line PixelLine(int64_t size, bool align) {
  const double s = static_cast<double>(size);
  return {(align ? s - 1 : s) / 2, (s - 1) / 2};
}
Line NormalizedLine(int64_t size, bool align) {
  const double s = static_cast<double>(size);
  if (align) return size > 1 ? Line{2 / (s - 1), -1} : Line{0, 0};
  return {2 / s, 1 / s - 1};
}

// cos and sin of an angle in degrees, exact at multiples of 90 degrees; the angle reduced modulo
// 360 first (exactly: radians of 1e20 degrees would have lost every digit).
void CosSin(double degrees, double* cos, double* sin) {
  const double turn = std::fmod(degrees, 360.0);
  const double d = std::fmod(turn + 360.0, 360.0);
  const double exact[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  for (int k = 0; k < 4; ++k) {
    if (d == 90.0 * k) {
      *cos = exact[k][0];
      *sin = exact[k][1];
      return;
    }
  }
  const double r = turn * M_PI / 180;
  *cos = std::cos(r);
  *sin = std::sin(r);
}

// A quad (four points x, y) moved by the centre of its bounding box and scaled by 2^-exp to
// within [-1, 1], so that the collinearity test and the solve see its shape alone.
struct Quad {
  double q[4][2];
  double centre[2];
  int64_t exp;
};

// Twice the signed area of the triangle p, q, r.
double Cross(const double* p, const double* q, const double* r) {
  return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
}

Status ReadQuad(const char* op, const char* what, const double* points, Quad* quad) {
  for (int k = 0; k < 8; ++k) {
    if (!std::isfinite(points[k])) {
      return Invalid(op, std::string(what) + "[" + std::to_string(k / 2) + "][" +
                             std::to_string(k % 2) + "]: expected a finite number, got " +
                             NumberString(points[k]));
    }
  }
  double half = 0.0;
  for (int k = 0; k < 2; ++k) {  // halves first: min + max may pass double's range
    double lo = points[k], hi = points[k];
    for (int i = 1; i < 4; ++i)
      lo = std::min(lo, points[2 * i + k]), hi = std::max(hi, points[2 * i + k]);
    quad->centre[k] = lo / 2 + hi / 2;
    half = std::max(half, hi / 2 - lo / 2);
  }
  quad->exp = half > 0 ? static_cast<int64_t>(std::ceil(std::log2(half))) : 0;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 2; ++k)
      quad->q[i][k] = Scale(points[2 * i + k] - quad->centre[k], -quad->exp);
  }
  const int triples[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
  for (const auto& t : triples) {
    if (std::fabs(Cross(quad->q[t[0]], quad->q[t[1]], quad->q[t[2]])) <= 1e-12) {
      return Invalid(op, std::string(what) + ": points " + std::to_string(t[0]) + ", " +
                             std::to_string(t[1]) + " and " + std::to_string(t[2]) +
                             " lie on one line (a degenerate quad): no perspective map takes it "
                             "onto a quad");
    }
  }
  return Status::Ok();
}

// The homography n taking quad s onto quad d (points within [-1, 1], no three on a line) by the
// projective basis: with S the points s0, s1, s2 as homogeneous columns and l = adj(S) s3 (twice
// the areas of the triangles with s3 in place of each point), A = S diag(l) takes e0, e1, e2 and
// (1, 1, 1) to s0..s3, and B likewise for d with u; then n = B adj(A) = D diag(u0 l1 l2,
// u1 l0 l2, u2 l0 l1) adj(S). It assumes no entry is 1, so h8 may come out 0.
void BasisHomography(const Quad& s, const Quad& d, double* n) {
  const auto weights = [](const Quad& p, double* w) {
    w[0] = Cross(p.q[3], p.q[1], p.q[2]);
    w[1] = Cross(p.q[0], p.q[3], p.q[2]);
    w[2] = Cross(p.q[0], p.q[1], p.q[3]);
  };
  const auto columns = [](const Quad& p, double* c) {
    const double m[9] = {p.q[0][0], p.q[1][0], p.q[2][0], p.q[0][1], p.q[1][1], p.q[2][1], 1, 1, 1};
    std::copy(m, m + 9, c);
  };
  double l[3], u[3], ds[9], ss[9], adj_s[9];
  weights(s, l);
  weights(d, u);
  const double w[3] = {u[0] * l[1] * l[2], u[1] * l[0] * l[2], u[2] * l[0] * l[1]};
  columns(d, ds);
  for (int k = 0; k < 9; ++k) ds[k] *= w[k % 3];
  columns(s, ss);
  Wide adj[9];
  Adjugate3(ss, adj);
  for (int k = 0; k < 9; ++k) adj_s[k] = ToDouble(adj[k]);
  Multiply3(ds, adj_s, n);
}

}  // namespace

Status PixelHomographyOf(const char* op, const double* m, int rows, MatrixSpace space,
                         const WarpSides& sides, bool align_corners, double h[9], const char* name,
                         const char* inverse_option) {
  double given[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
  std::copy(m, m + 3 * rows, given);
  if (space == MatrixSpace::kPixelInverse) {
    std::copy(given, given + 9, h);
    return Status::Ok();
  }
  if (space == MatrixSpace::kNormalized) {
    double in[9], out[9], left[9];
    LineMap(PixelLine(sides.in_w, align_corners), PixelLine(sides.in_h, align_corners), in);
    LineMap(NormalizedLine(sides.out_w, align_corners), NormalizedLine(sides.out_h, align_corners),
            out);
    Multiply3(in, given, left);
    Multiply3(left, out, h);
    return Status::Ok();
  }
  const std::string what = name == nullptr ? "M" : name;
  for (int k = 0; k < 3 * rows; ++k) {
    if (!std::isfinite(given[k])) {
      return Invalid(op, what + "[" + std::to_string(k) +
                             "]: expected a finite number to invert the matrix, got " +
                             NumberString(given[k]) + " (with " + inverse_option +
                             " a non-finite entry gives transparent pixels where it reaches)");
    }
  }
  double inverse[9];
  if (!Invert3(given, inverse)) {
    return Invalid(op, what +
                           ": it is singular (determinant 0), so it cannot be inverted; give the " +
                           "output-to-input map with " + inverse_option);
  }
  for (double v : inverse) {
    if (!std::isfinite(v)) {
      return Invalid(
          op, what + ": its inverse has entries beyond double's range (about 1.8e308): it is too " +
                  "nearly singular to invert; give the output-to-input map with " + inverse_option);
    }
  }
  std::copy(inverse, inverse + 9, h);
  return Status::Ok();
}

Status PixelHomography(const double* m, int rows, MatrixSpace space, const WarpSides& sides,
                       bool align_corners, double h[9], const char* name) {
  return PixelHomographyIn(m, rows, space, sides, align_corners, h, name, kPixelInverseWords);
}

Status PixelHomographyIn(const double* m, int rows, MatrixSpace space, const WarpSides& sides,
                         bool align_corners, double h[9], const char* name,
                         const char* inverse_option) {
  const char* op = "PixelHomography";
  if (m == nullptr || h == nullptr) return Invalid(op, "a matrix pointer is null");
  if (rows != 2 && rows != 3) {
    return Invalid(op, "rows: expected 2 or 3, got " + std::to_string(rows));
  }
  return PixelHomographyOf(op, m, rows, space, sides, align_corners, h, name, inverse_option);
}

Status RotationMatrix(double cx, double cy, double angle_deg, double scale, double m[6]) {
  const char* op = "RotationMatrix";
  if (m == nullptr) return Invalid(op, "the matrix pointer is null");
  const double args[4] = {cx, cy, angle_deg, scale};
  const char* names[4] = {"center[0]", "center[1]", "angleDeg", "scale"};
  for (int k = 0; k < 4; ++k) {
    if (!std::isfinite(args[k])) {
      return Invalid(
          op, std::string(names[k]) + ": expected a finite number, got " + NumberString(args[k]));
    }
  }
  double cos = 0, sin = 0;
  CosSin(angle_deg, &cos, &sin);
  const double a = scale * cos, b = scale * sin;
  // OpenCV's (1 - a) cx - b cy and b cx + (1 - a) cy, in wide numbers: with a centre near 1e308 a
  // product may pass double's range where the entry does not.
  const double c =
      ToDouble(Sum({WideOf(cx), Product({-scale, cos, cx}), Product({-scale, sin, cy})}));
  const double f =
      ToDouble(Sum({WideOf(cy), Product({scale, sin, cx}), Product({-scale, cos, cy})}));
  const double out[6] = {a, b, c, -b, a, f};
  for (int k = 0; k < 6; ++k) {
    if (!std::isfinite(out[k])) {
      return Invalid(op, "scale: " + NumberString(scale) + " about center [" + NumberString(cx) +
                             ", " + NumberString(cy) + "] gives entry " + std::to_string(k) +
                             " of the matrix beyond double's range (about 1.8e308)");
    }
  }
  std::copy(out, out + 6, m);
  return Status::Ok();
}

Status PerspectiveTransform(const double src[8], const double dst[8], double h[9]) {
  const char* op = "PerspectiveTransform";
  if (src == nullptr || dst == nullptr || h == nullptr) return Invalid(op, "a pointer is null");
  Quad s, d;
  Status st = ReadQuad(op, "src", src, &s);
  if (st.ok()) st = ReadQuad(op, "dst", dst, &d);
  if (!st.ok()) return st;
  double n[9];
  BasisHomography(s, d, n);
  // Back from the quads' frames: H ~ [2^d.exp I, d.centre; 0, 1] n [I, -s.centre; 0, 2^s.exp],
  // in wide numbers, as its entries may span more than double's range between them.
  const double sx = s.centre[0], sy = s.centre[1];
  const Wide s_scale{1.0, s.exp};
  Wide g[9], w[9];
  for (int r = 0; r < 3; ++r) {
    g[3 * r] = WideOf(n[3 * r]);
    g[3 * r + 1] = WideOf(n[3 * r + 1]);
    g[3 * r + 2] = Sum({Product({WideOf(n[3 * r + 2]), s_scale}), Product({-n[3 * r], sx}),
                        Product({-n[3 * r + 1], sy})});
  }
  for (int k = 0; k < 9; ++k) {
    w[k] = k >= 6 ? g[k]
                  : Sum({Product({Wide{1.0, d.exp}, g[k]}),
                         Product({WideOf(d.centre[k / 3]), g[6 + k % 3]})});
  }
  // h8 = 1 unless h8 (w at the origin) is 0 within the rounding of the sum that gave it.
  const Wide h8_terms =
      Sum({Product({WideOf(std::fabs(n[8])), s_scale}), Product({std::fabs(n[6]), std::fabs(sx)}),
           Product({std::fabs(n[7]), std::fabs(sy)})});
  if (w[8].m != 0.0 && std::fabs(Quotient(w[8], h8_terms)) > 1e-12) {
    double out[9];
    for (int k = 0; k < 9; ++k) {
      out[k] = Quotient(w[k], w[8]) + 0.0;  // + 0: no -0 where OpenCV writes 0
      if (!std::isfinite(out[k])) {
        return Invalid(op,
                       "src and dst differ so much in scale that the homography between them "
                       "has entries beyond double's range (about 1.8e308) with h8 = 1");
      }
    }
    std::copy(out, out + 9, h);
    return Status::Ok();
  }
  // The matrix of norm 1, its sign that of w at the src points (2^s.exp times n's at the point
  // in the quad's frame).
  double w_src = 0.0;
  for (const auto& p : s.q) w_src = w_src + n[6] * p[0] + n[7] * p[1] + n[8];
  int64_t top = 0;
  bool any = false;
  for (const Wide& v : w) {
    if (v.m != 0.0) top = any ? std::max(top, v.e) : v.e, any = true;
  }
  double scaled[9], sum = 0.0;
  for (int k = 0; k < 9; ++k) {
    scaled[k] = Scale(w[k].m, w[k].e - top);
    sum += scaled[k] * scaled[k];
  }
  const double norm = std::sqrt(sum) * (w_src < 0 ? -1 : 1);
  for (int k = 0; k < 9; ++k) h[k] = scaled[k] / norm + 0.0;
  return Status::Ok();
}

}  // namespace gridsample
