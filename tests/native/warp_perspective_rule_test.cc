// WarpPerspective's coordinate rule (rules/perspective_rule.h) against the exact projection.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "rules/perspective_rule.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// perspective_rule.h's float32 positions are the exact projection (X / W, Y / W) of
// H * (j, i, 1) computed in double, within the rounding error of its float32 steps: a few units
// in the last place of the terms summed, divided by |W|; whatever H's scale (H and 2^k H, k up
// to +-900, give the same positions).
TEST(WarpPerspectiveRule, CoordinatesFollowTheExactProjection) {
  std::mt19937 rng(404);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int64_t checked = 0, behind = 0;
  double worst = 0;  // largest error / bound
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t w = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t h = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t wo = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t ho = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const double m[9] = {static_cast<double>(w) / wo * (1 + 0.3 * u(rng)),
                         0.3 * u(rng),
                         20 * u(rng),
                         0.3 * u(rng),
                         static_cast<double>(h) / ho * (1 + 0.3 * u(rng)),
                         20 * u(rng),
                         1.5 * u(rng) / wo,
                         1.5 * u(rng) / ho,
                         1 + 0.2 * u(rng)};
    const int k = std::uniform_int_distribution<int>(-900, 900)(rng);
    double scaled[9];
    for (int e = 0; e < 9; ++e) scaled[e] = std::ldexp(m[e], k);
    const gridsample::PerspectiveMap map = gridsample::PerspectiveMapOf(m);
    const gridsample::PerspectiveMap map_scaled = gridsample::PerspectiveMapOf(scaled);
    for (int q = 0; q < 40; ++q) {
      const int64_t i = std::uniform_int_distribution<int64_t>(0, ho - 1)(rng);
      const int64_t j = std::uniform_int_distribution<int64_t>(0, wo - 1)(rng);
      float x, y, xs, ys;
      gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &x, &y);
      gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map_scaled, i), j, &xs,
                                         &ys);
      const std::string where = "(" + std::to_string(j) + ", " + std::to_string(i) + ") of " +
                                std::to_string(wo) + "x" + std::to_string(ho);
      const double p[3] = {static_cast<double>(j), static_cast<double>(i), 1.0};
      const double X = m[0] * p[0] + m[1] * p[1] + m[2];
      const double Y = m[3] * p[0] + m[4] * p[1] + m[5];
      const double W = m[6] * p[0] + m[7] * p[1] + m[8];
      if (!(W > 0)) {
        EXPECT_TRUE(std::isnan(x) && std::isnan(y)) << "W = " << W << " at " << where;
        EXPECT_TRUE(std::isnan(xs) && std::isnan(ys)) << "W = " << W << " at " << where;
        ++behind;
        continue;
      }
      ASSERT_EQ(x, xs) << "x at " << where << ", H times 2^" << k;
      ASSERT_EQ(y, ys) << "y at " << where << ", H times 2^" << k;
      // Each float32 step rounds by at most 2^-24 relative: the numerators' and w's terms
      // (three roundings each) and the quotient.
      const double eps = std::ldexp(1.0, -24);
      const auto sum = [&](const double* r) {
        return std::fabs(r[0] * p[0]) + std::fabs(r[1] * p[1]) + std::fabs(r[2]);
      };
      const double scale = std::ldexp(1.0, -std::ilogb(map.w[2] / m[8]));  // map = m / scale
      const auto bound = [&](const double* r, double v) {
        return (4 * eps * (sum(r) + std::fabs(v) * sum(map.w)) * scale / W +
                2 * eps * std::fabs(v)) +
               1e-12;
      };
      const double ex = X / W, ey = Y / W;
      const double bx = bound(map.x, x), by = bound(map.y, y);
      ASSERT_LE(std::fabs(x - ex), bx) << "x at " << where << " onto " << w << "x" << h;
      ASSERT_LE(std::fabs(y - ey), by) << "y at " << where << " onto " << w << "x" << h;
      worst = std::max({worst, std::fabs(x - ex) / bx, std::fabs(y - ey) / by});
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(behind, 10);
  std::printf(
      "perspective rule: %lld points within their bound (largest error %.2f of it), %lld behind "
      "the camera\n",
      static_cast<long long>(checked), worst, static_cast<long long>(behind));
}

// Points at infinity or of non-finite H sample nothing; a huge but finite w is a point near
// the origin (H's scale does not matter).
TEST(WarpPerspectiveRule, InfiniteAndNonFiniteWSampleNothing) {
  const double cases[][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 0},         // W = 0 everywhere
                             {1, 0, 0, 0, 1, 0, 0, 0, -1},        // behind the camera
                             {1, 0, 0, 0, 1, 0, 0, 0, HUGE_VAL},  // at infinity
                             {1, 0, 0, 0, 1, 0, 0, std::nan(""), 1}};
  for (const double* m : cases) {
    const gridsample::PerspectiveMap map = gridsample::PerspectiveMapOf(m);
    for (int64_t i : {0, 3}) {
      for (int64_t j : {1, 5}) {
        float x, y;
        gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &x, &y);
        EXPECT_TRUE(std::isnan(x) && std::isnan(y))
            << "H[6..8] = " << m[6] << ", " << m[7] << ", " << m[8] << " got " << x << ", " << y;
      }
    }
  }
  const double near_origin[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1e300};
  float x, y;
  gridsample::PerspectiveCoordinates(
      gridsample::PerspectiveRowTerms(gridsample::PerspectiveMapOf(near_origin), 3), 5, &x, &y);
  EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(y, 0.0f);
}

// Finite positions beyond float32's range stay finite (the terms and the quotient saturate), so
// they follow the padding rule: border padding repeats the corner they lie beyond.
TEST(WarpPerspectiveRule, HugeFinitePositionsFollowThePadding) {
  const double h[9] = {1, 0, 1e300, 0, 1, -1e300, 0, 0, 1};
  float x, y;
  gridsample::PerspectiveCoordinates(
      gridsample::PerspectiveRowTerms(gridsample::PerspectiveMapOf(h), 2), 3, &x, &y);
  EXPECT_TRUE(std::isfinite(x) && x > 1e30f) << x;
  EXPECT_TRUE(std::isfinite(y) && y < -1e30f) << y;
  std::mt19937 rng(3);
  const Tensor img = RandomTensor(rng, DType::kFloat32, {1, 5, 7, 2});
  const Tensor hm = MakeTensor(DType::kFloat64, {1, 3, 3}, {h, h + 9});
  Tensor out(DType::kFloat32, {1, 3, 4, 2});
  for (Mode m : kModes) {
    ASSERT_TRUE(gridsample::WarpPerspective(img.View(), hm.View(), out.MutableView(),
                                            {m, Padding::kBorder, false, {}})
                    .ok());
    for (int64_t k = 0; k < out.size(); ++k) {
      ASSERT_EQ(out.Get(k), img.Get(6 * 2 + k % 2)) << "row 0, last column; " << Name(m);
    }
  }
}

}  // namespace
}  // namespace gridsample_test
