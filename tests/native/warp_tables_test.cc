// The WebGPU warps' coordinate tables (api/warp_tables.h) against independent oracles: the
// affine pairs and points against AffineGrid's float64 values, the perspective row terms against
// a direct evaluation of H in long double.
#include "api/warp_tables.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gridsample/affine_grid.h"
#include "gtest/gtest.h"

namespace gridsample_test {
namespace {

using gridsample::DType;
using gridsample::Padding;
using gridsample::WarpTable;

// AffineGrid's float64 grid (H, W, 2: x then y) of theta for an out_h x out_w output.
std::vector<double> AffineGridOf(const double* theta, int64_t out_h, int64_t out_w, bool align) {
  const int64_t theta_shape[3] = {1, 2, 3};
  const int64_t size[4] = {1, 1, out_h, out_w};
  const int64_t grid_shape[4] = {1, out_h, out_w, 2};
  std::vector<double> grid(static_cast<size_t>(2 * out_h * out_w));
  gridsample::AffineGridOptions options;
  options.align_corners = align;
  const gridsample::Status status =
      gridsample::AffineGrid({theta, DType::kFloat64, theta_shape, 3}, size, 4,
                             {grid.data(), DType::kFloat64, grid_shape, 4}, options);
  EXPECT_TRUE(status.ok()) << status.message();
  return grid;
}

// A table and its 4 source floats.
struct Table {
  std::vector<float> values;
  float source[4];
};

Table TableOf(WarpTable kind, const double* matrix, int64_t out_h, int64_t out_w, bool align) {
  Table t;
  t.values.assign(static_cast<size_t>(gridsample::WarpTableFloats(kind, out_h, out_w)), -7.0f);
  gridsample::FillWarpTable(kind, matrix, out_h, out_w, align, t.values.data(), t.source);
  return t;
}

double PairValue(const float* p) { return static_cast<double>(p[0]) + static_cast<double>(p[1]); }

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Every column pair is theta's first column times AffineGrid's base x, every row pair its second
// column times base y, each within 2^-48 of the float64 product (the products are AffineGrid's
// values of a theta with that column alone); all three pairs add up to AffineGrid's value of
// theta within 2^-47 of the terms' magnitudes.
TEST(WarpTables, AffineTermsAreAffineGridsProductsAsPairs) {
  std::mt19937 rng(47);
  std::uniform_real_distribution<double> exponent(-3.0, 29.0);
  std::bernoulli_distribution coin(0.5);
  int64_t checked = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const int64_t out_w = std::uniform_int_distribution<int64_t>(1, 40)(rng);
    const int64_t out_h = std::uniform_int_distribution<int64_t>(1, 40)(rng);
    const bool align = coin(rng);
    double theta[6];
    for (double& t : theta) t = (coin(rng) ? -1 : 1) * std::pow(10.0, exponent(rng));
    const DType dtype = coin(rng) ? DType::kFloat64 : DType::kFloat32;
    ASSERT_EQ(gridsample::AffineWarpTable(theta, dtype, Padding::kZeros), WarpTable::kAffineTerms);
    const Table t = TableOf(WarpTable::kAffineTerms, theta, out_h, out_w, align);
    ASSERT_EQ(t.values.size(), static_cast<size_t>(4 * (out_w + out_h)));
    const double columns[6] = {theta[0], 0, 0, theta[3], 0, 0};
    const double rows[6] = {0, theta[1], 0, 0, theta[4], 0};
    const std::vector<double> col = AffineGridOf(columns, out_h, out_w, align);
    const std::vector<double> row = AffineGridOf(rows, out_h, out_w, align);
    const std::vector<double> all = AffineGridOf(theta, out_h, out_w, align);
    for (int k = 0; k < 2; ++k) {
      EXPECT_LE(std::fabs(PairValue(t.source + 2 * k) - theta[3 * k + 2]),
                0x1p-48 * std::fabs(theta[3 * k + 2]));
    }
    for (int64_t i = 0; i < out_h; ++i) {
      for (int64_t j = 0; j < out_w; ++j) {
        for (int k = 0; k < 2; ++k) {
          const size_t at = static_cast<size_t>(2 * (i * out_w + j) + k);
          const double a = PairValue(&t.values[static_cast<size_t>((2 * j + k) * 2)]);
          const double b = PairValue(&t.values[static_cast<size_t>(4 * out_w + (2 * i + k) * 2)]);
          const double c = PairValue(t.source + 2 * k);
          ASSERT_LE(std::fabs(a - col[at]), 0x1p-48 * std::fabs(col[at]))
              << "column " << j << " of " << out_w << ", value " << k << ", align " << align;
          ASSERT_LE(std::fabs(b - row[at]), 0x1p-48 * std::fabs(row[at]))
              << "row " << i << " of " << out_h << ", value " << k << ", align " << align;
          ASSERT_LE(std::fabs((a + b) + c - all[at]),
                    0x1p-47 * (std::fabs(a) + std::fabs(b) + std::fabs(c)))
              << "pixel (" << i << ", " << j << "), value " << k;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

// Products beyond +-2^100 are kept there (lo 0); non-finite ones stay non-finite (lo 0).
TEST(WarpTables, AffineTermsKeepFarValuesWithinTheTermLimit) {
  const double theta[6] = {1e300,        -1e200, std::numeric_limits<double>::infinity(),
                           std::nan(""), 3e30,   -2.0};
  const Table t = TableOf(WarpTable::kAffineTerms, theta, 2, 2, true);  // base -1, 1
  const float limit = 0x1p100f;
  EXPECT_EQ(t.values[0], -limit);        // column 0, x: 1e300 * -1
  EXPECT_EQ(t.values[4], limit);         // column 1, x: 1e300 * 1
  EXPECT_TRUE(std::isnan(t.values[2]));  // column 0, y: NaN * -1
  EXPECT_EQ(t.values[8], limit);         // row 0, x: -1e200 * -1
  EXPECT_EQ(t.values[10], -limit);       // row 0, y: 3e30 * -1
  for (int p = 0; p < 8; ++p) {
    if (!std::isfinite(t.values[2 * p]) || std::fabs(t.values[2 * p]) == limit) {
      EXPECT_EQ(t.values[2 * p + 1], 0.0f) << "pair " << p;
    }
  }
  EXPECT_EQ(t.source[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(t.source[1], 0.0f);
  EXPECT_EQ(t.source[2], -2.0f);
  EXPECT_EQ(t.source[3], 0.0f);
}

// A float64 theta under reflection whose values may pass 2^8 gives per-pixel points; float32
// thetas, other paddings and smaller thetas give the pairs.
TEST(WarpTables, PointsWhereReflectionReducesFarFloat64Values) {
  const double small[6] = {100, 50, 105.5, 1, 1, 1};
  const double big[6] = {1, 1, 1, 200, 50, 6};
  const double nan[6] = {std::nan(""), 0, 0, 0, 1, 0};
  EXPECT_EQ(gridsample::AffineWarpTable(small, DType::kFloat64, Padding::kReflection),
            WarpTable::kAffineTerms);
  EXPECT_EQ(gridsample::AffineWarpTable(big, DType::kFloat64, Padding::kReflection),
            WarpTable::kAffinePoints);
  EXPECT_EQ(gridsample::AffineWarpTable(big, DType::kFloat32, Padding::kReflection),
            WarpTable::kAffineTerms);
  EXPECT_EQ(gridsample::AffineWarpTable(big, DType::kFloat64, Padding::kBorder),
            WarpTable::kAffineTerms);
  EXPECT_EQ(gridsample::AffineWarpTable(nan, DType::kFloat64, Padding::kReflection),
            WarpTable::kAffineTerms);
}

// The points are AffineGrid's float64 values reduced as fmod(v, 4) past |v| = 3, then float32,
// bit for bit (non-finite: NaN); the source is zeros.
TEST(WarpTables, AffinePointsAreAffineGridsValuesReducedModuloFour) {
  std::mt19937 rng(46);
  std::uniform_real_distribution<double> exponent(-2.0, 300.0);
  std::bernoulli_distribution coin(0.5);
  for (int iter = 0; iter < 100; ++iter) {
    const int64_t out_w = std::uniform_int_distribution<int64_t>(1, 30)(rng);
    const int64_t out_h = std::uniform_int_distribution<int64_t>(1, 30)(rng);
    const bool align = coin(rng);
    double theta[6];
    for (double& t : theta) t = (coin(rng) ? -1 : 1) * std::pow(10.0, exponent(rng));
    if (iter % 10 == 0) theta[iter / 10 % 6] = std::numeric_limits<double>::infinity();
    const Table t = TableOf(WarpTable::kAffinePoints, theta, out_h, out_w, align);
    ASSERT_EQ(t.values.size(), static_cast<size_t>(2 * out_w * out_h));
    for (float s : t.source) EXPECT_EQ(Bits(s), 0u);
    const std::vector<double> grid = AffineGridOf(theta, out_h, out_w, align);
    for (size_t p = 0; p < grid.size(); ++p) {
      const double g = grid[p];
      if (!std::isfinite(g)) {
        ASSERT_TRUE(std::isnan(t.values[p])) << "value " << p << " of " << g;
        continue;
      }
      const float want = static_cast<float>(std::fabs(g) > 3 ? std::fmod(g, 4.0) : g);
      ASSERT_EQ(Bits(t.values[p]), Bits(want))
          << "value " << p << " of " << g << ", align " << align;
    }
  }
}

// H's row terms m[1] i + m[2] and column terms m[0], m scaled by the power of two that brings
// the w row's largest entry into [0.5, 1): against H evaluated directly in long double (scaled
// after the sum), within float32's rounding and the double sum's; H and 2^k H, for k up to
// +-900, give the same terms.
TEST(WarpTables, PerspectiveTermsAreTheScaledHomographysRows) {
  std::mt19937 rng(4747);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int64_t checked = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t out_h = std::uniform_int_distribution<int64_t>(1, 3000)(rng);
    double h[9] = {1 + 0.3 * u(rng), 0.3 * u(rng),     50 * u(rng),
                   0.3 * u(rng),     1 + 0.3 * u(rng), 50 * u(rng),
                   1e-3 * u(rng),    1e-3 * u(rng),    1 + 0.2 * u(rng)};
    const int k = std::uniform_int_distribution<int>(-900, 900)(rng);
    double scaled[9];
    for (int e = 0; e < 9; ++e) scaled[e] = std::ldexp(h[e], k);
    const Table t = TableOf(WarpTable::kPerspectiveTerms, h, out_h, 5, false);
    const Table ts = TableOf(WarpTable::kPerspectiveTerms, scaled, out_h, 5, false);
    ASSERT_EQ(t.values.size(), static_cast<size_t>(3 * out_h));
    ASSERT_EQ(std::memcmp(t.values.data(), ts.values.data(), 4 * t.values.size()), 0) << k;
    ASSERT_EQ(std::memcmp(t.source, ts.source, sizeof t.source), 0) << k;
    // The scale: largest |w entry| times 2^-e in [0.5, 1).
    const double largest = std::fmax(std::fabs(h[6]), std::fmax(std::fabs(h[7]), std::fabs(h[8])));
    const int e = std::ilogb(largest) + 1;
    for (int r = 0; r < 3; ++r) {
      const long double col = std::ldexp(static_cast<long double>(h[3 * r]), -e);
      EXPECT_LE(std::fabs(t.source[r] - col), 0x1p-24L * std::fabs(col)) << "column " << r;
    }
    EXPECT_EQ(Bits(t.source[3]), 0u);
    for (int64_t i = 0; i < out_h; ++i) {
      for (int r = 0; r < 3; ++r) {
        const long double a = static_cast<long double>(h[3 * r + 1]) * i;
        const long double b = h[3 * r + 2];
        const long double direct = std::ldexp(a + b, -e);
        const long double sum_error = std::ldexp(std::fabs(a) + std::fabs(b), -e) * 0x1p-51L;
        const float got = t.values[static_cast<size_t>(3 * i + r)];
        ASSERT_LE(std::fabs(got - direct), 0x1p-24L * std::fabs(direct) + sum_error)
            << "row " << i << ", term " << r << ", H scaled by 2^" << k;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000);
}

// Entries far apart: terms past +-2^100 once scaled are kept there; a w row of zeros leaves H
// unscaled; a non-finite entry stays non-finite.
TEST(WarpTables, PerspectiveTermsOfHugeAndTinyEntries) {
  const float limit = 0x1p100f;
  const double apart[9] = {1e30, 0, -1e40, 0, 1e-300, 3, 0, 1e-290, 1e-200};
  const Table a = TableOf(WarpTable::kPerspectiveTerms, apart, 3, 4, false);
  EXPECT_EQ(a.source[0], limit);
  EXPECT_EQ(a.values[0], -limit);  // row 0, x: -1e40 scaled
  EXPECT_EQ(a.values[1], limit);   // row 0, y: 3 scaled by about 2^664
  const int e = std::ilogb(1e-200) + 1;
  EXPECT_EQ(a.values[2], static_cast<float>(std::ldexp(1e-200, -e)));           // row 0, w
  EXPECT_EQ(a.values[5], static_cast<float>(std::ldexp(1e-290 + 1e-200, -e)));  // row 1, w
  const double flat[9] = {2, 0, 1, 0, 3, 0, 0, 0, 0};
  const Table f = TableOf(WarpTable::kPerspectiveTerms, flat, 2, 2, true);
  EXPECT_EQ(f.source[0], 2.0f);
  EXPECT_EQ(f.values[3], 1.0f);  // row 1, x: 0 * 1 + 1
  EXPECT_EQ(f.values[4], 3.0f);  // row 1, y: 3 * 1 + 0
  const double inf[9] = {1, 0, 0, 0, 1, 0, 0, 0, std::numeric_limits<double>::infinity()};
  const Table n = TableOf(WarpTable::kPerspectiveTerms, inf, 1, 1, false);
  EXPECT_EQ(n.values[2], std::numeric_limits<float>::infinity());
}

// The sizes: saturated where the count overflows, never negative.
TEST(WarpTables, Sizes) {
  EXPECT_EQ(gridsample::WarpTableFloats(WarpTable::kAffineTerms, 3, 5), 32);
  EXPECT_EQ(gridsample::WarpTableFloats(WarpTable::kAffinePoints, 3, 5), 30);
  EXPECT_EQ(gridsample::WarpTableFloats(WarpTable::kPerspectiveTerms, 3, 5), 9);
  EXPECT_EQ(gridsample::WarpTableFloats(WarpTable::kAffinePoints, 0, 1LL << 53), 0);
  EXPECT_EQ(gridsample::WarpTableFloats(WarpTable::kAffinePoints, 1LL << 40, 1LL << 40),
            std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace gridsample_test
