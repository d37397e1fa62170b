// Remap's pixel rule (rules/pixel_rule.h) against exact arithmetic, on every target.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "channels_last_inputs.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// Reflection's reduction of a far position (pixel_rule.h) moves it by whole periods: the same
// fraction, a floor congruent modulo the period (checked in int64), and the result within a
// period of the image; positions that are not far stay as they are.
TEST(PixelRule, FarReflectionMovesByWholePeriods) {
  std::mt19937 rng(55);
  int64_t reduced = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t size = std::uniform_int_distribution<int64_t>(1, 5000)(rng);
    const bool align = iter % 2 == 1;
    const double period = gridsample::ReflectionPeriod(size, align);
    for (int k = 0; k < 50; ++k) {
      const float u = HostilePixel(rng, size);
      if (!std::isfinite(u)) continue;
      const float r = gridsample::ReducePixel(u, size, align);
      if (!gridsample::PixelIsFar(u, period)) {
        ASSERT_EQ(r, u) << u << " on " << size << " pixels";
        continue;
      }
      ++reduced;
      const std::string what = std::to_string(u) + " on " + std::to_string(size) + " pixels";
      ASSERT_GE(r, -period - 0.5) << what;
      ASSERT_LT(r, period) << what;
      if (std::fabs(u) > 1e18f) continue;  // beyond int64: the bounds only
      ASSERT_EQ(u - std::floor(u), r - std::floor(r)) << what;
      const auto whole = static_cast<int64_t>(std::floor(u)) - static_cast<int64_t>(std::floor(r));
      ASSERT_EQ(whole % static_cast<int64_t>(period), 0) << what;
    }
  }
  EXPECT_GT(reduced, 1000);
}

// Remap and WarpFlow (planes and channels-last) sample pixel positions as they are: where the
// positions and weights are
// exact in binary (eighths for linear, halves for cubic, ties for nearest) and every tap lies
// inside X, the result is the exact weighted sum (integer X values: the float32 sums are exact),
// on every target, for sizes that are not powers of two. (Through a normalised coordinate the
// result was off by a unit in the last place: OpenCV's Imgproc_Remap.issue_23562.)
class PixelPositions : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(PixelPositions);

// The exact value at (u, v) of plane `c` of an (H, W, C) image, every tap inside.
double ExactSample(const Tensor& x, int64_t c, double u, double v, Mode mode) {
  const int64_t w = x.shape()[2], channels = x.shape()[3];
  const auto at = [&](int64_t i, int64_t j) { return x.Get((i * w + j) * channels + c); };
  if (mode == Mode::kNearest) {
    return at(static_cast<int64_t>(std::nearbyint(v)), static_cast<int64_t>(std::nearbyint(u)));
  }
  const auto weights = [&](double t, double* wt) {  // taps floor - 1 .. floor + 2
    const double a = -0.75;
    const auto near = [a](double s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };
    const auto far = [a](double s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };
    if (mode == Mode::kLinear) {
      wt[0] = 0, wt[1] = 1 - t, wt[2] = t, wt[3] = 0;
    } else {
      wt[0] = far(t + 1), wt[1] = near(t), wt[2] = near(1 - t), wt[3] = far(2 - t);
    }
  };
  const double fu = std::floor(u), fv = std::floor(v);
  double wu[4], wv[4];
  weights(u - fu, wu);
  weights(v - fv, wv);
  double sum = 0;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      const double wgt = wu[b] * wv[a];
      if (wgt != 0)
        sum += wgt * at(static_cast<int64_t>(fv) - 1 + a, static_cast<int64_t>(fu) - 1 + b);
    }
  }
  return sum;
}

TEST_P(PixelPositions, ExactPositionsGiveExactSums) {
  std::mt19937 rng(23562);
  for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {7, 11}, {37, 100}}) {
    for (Mode mode : kModes) {
      // Positions whose taps stay inside: cubic reads floor - 1 .. floor + 2.
      const double step = mode == Mode::kLinear ? 0.125 : 0.5;
      const double lo = mode == Mode::kCubic ? 1 : 0;
      const auto position = [&](int64_t size) {
        const double hi = mode == Mode::kCubic ? static_cast<double>(size) - 3 : size - 1.0;
        const auto steps = static_cast<int64_t>((hi - lo) / step);
        return lo + step * std::uniform_int_distribution<int64_t>(0, steps)(rng);
      };
      if (mode == Mode::kCubic && std::min(h, w) < 5) continue;
      for (int64_t c : {1, 3, 4}) {
        Tensor x(DType::kFloat32, {1, h, w, c});
        for (int64_t k = 0; k < x.size(); ++k) {
          x.Set(k, std::uniform_int_distribution<int>(0, 255)(rng));
        }
        const int64_t ho = 5, wo = 9;
        Tensor map(DType::kFloat32, {1, ho, wo, 2}), flow(DType::kFloat32, {1, ho, wo, 2});
        for (int64_t p = 0; p < ho * wo; ++p) {
          const double u = position(w), v = position(h);
          map.Set(2 * p, u);
          map.Set(2 * p + 1, v);
          flow.Set(2 * p, u - static_cast<double>(p % wo));  // exact: small dyadic values
          flow.Set(2 * p + 1, v - static_cast<double>(p / wo));
        }
        for (Padding pad : kPaddings) {
          const GridSampleOptions o{mode, pad, pad == Padding::kReflection, {}};
          Tensor y(DType::kFloat32, {1, ho, wo, c}), yf(DType::kFloat32, {1, ho, wo, c});
          ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), y.MutableView(), o).ok());
          ASSERT_TRUE(
              gridsample::WarpFlowChannelsLast(x.View(), flow.View(), yf.MutableView(), o).ok());
          // WarpFlow on planes: X and the flow (N, 2, Ho, Wo) moved to channels first.
          Tensor planes(DType::kFloat32, {1, c, h, w}),
              flow_planes(DType::kFloat32, {1, 2, ho, wo});
          for (int64_t k = 0; k < x.size(); ++k) planes.Set(k % c * h * w + k / c, x.Get(k));
          for (int64_t p = 0; p < ho * wo; ++p) {
            flow_planes.Set(p, flow.Get(2 * p));
            flow_planes.Set(ho * wo + p, flow.Get(2 * p + 1));
          }
          Tensor yp(DType::kFloat32, {1, c, ho, wo});
          ASSERT_TRUE(
              gridsample::WarpFlow(planes.View(), flow_planes.View(), yp.MutableView(), o).ok());
          for (int64_t p = 0; p < ho * wo; ++p) {
            for (int64_t k = 0; k < c; ++k) {
              const double want = ExactSample(x, k, map.Get(2 * p), map.Get(2 * p + 1), mode);
              const std::string what = std::string("X ") + std::to_string(h) + "x" +
                                       std::to_string(w) + " C=" + std::to_string(c) + " at (" +
                                       std::to_string(map.Get(2 * p)) + ", " +
                                       std::to_string(map.Get(2 * p + 1)) + ") " + Describe(o);
              ASSERT_EQ(y.Get(p * c + k), want) << "Remap " << what;
              ASSERT_EQ(yf.Get(p * c + k), want) << "WarpFlowChannelsLast " << what;
              ASSERT_EQ(yp.Get(k * ho * wo + p), want) << "WarpFlow " << what;
            }
          }
        }
      }
    }
  }
}

// WarpPerspective samples its pixel positions as they are too: an H that moves output pixels by
// eighths or halves (w = 1), or halves their positions (w = 2), gives the exact weighted sums on
// sizes that are not powers of two, every mode, on every target.
TEST_P(PixelPositions, WarpPerspectiveAtExactPositionsGivesExactSums) {
  std::mt19937 rng(8);
  const int64_t h = 13, w = 37, c = 3, ho = 6, wo = 20;
  Tensor x(DType::kFloat32, {1, h, w, c});
  for (int64_t k = 0; k < x.size(); ++k) x.Set(k, std::uniform_int_distribution<int>(0, 255)(rng));
  for (Mode mode : kModes) {
    // Eighths for linear, halves for the others (cubic weights of eighths are not short).
    const bool eighths = mode == Mode::kLinear;
    for (const std::vector<double>& m :
         {std::vector<double>{1, 0, eighths ? 3.375 : 3.5, 0, 1, eighths ? 2.625 : 2.5, 0, 0, 1},
          std::vector<double>{1, 0, eighths ? 6.5 : 7, 0, 1, eighths ? 4.25 : 5, 0, 0, 2}}) {
      const Tensor hm = MakeTensor(DType::kFloat64, {1, 3, 3}, m);
      Tensor y(DType::kFloat32, {1, ho, wo, c});
      const GridSampleOptions o{mode, Padding::kZeros, false, {}};
      ASSERT_TRUE(gridsample::WarpPerspective(x.View(), hm.View(), y.MutableView(), o).ok());
      for (int64_t i = 0; i < ho; ++i) {
        for (int64_t j = 0; j < wo; ++j) {
          const double u = (j + m[2]) / m[8], v = (i + m[5]) / m[8];
          for (int64_t k = 0; k < c; ++k) {
            ASSERT_EQ(y.Get((i * wo + j) * c + k), ExactSample(x, k, u, v, mode))
                << "at (" << u << ", " << v << "), w = " << m[8] << " " << Describe(o);
          }
        }
      }
    }
  }
}

// OpenCV's Imgproc_Remap.issue_23562 (second loop): a half-pixel position on a 3x3 image
// samples exactly 17, for 1 to 4 channels (its BORDER_TRANSPARENT reads no pixel outside).
TEST_P(PixelPositions, OpenCvIssue23562) {
  const std::vector<double> mx = {0, 1, 2, 0, 1, 2, 0, 1, 2}, my = {0, 0, 0, 1, 1, 1, 2, 2, 1.5};
  const std::vector<double> want = {0, 1, 2, 10, 11, 12, 20, 21, 17};
  for (int64_t c = 1; c <= 4; ++c) {
    std::vector<double> values;
    for (double v : {0, 1, 2, 10, 11, 12, 20, 21, 22}) values.insert(values.end(), c, v);
    const Tensor x = MakeTensor(DType::kFloat32, {1, 3, 3, c}, values);
    Tensor y(DType::kFloat32, {1, 3, 3, c});
    const GridSampleOptions o{Mode::kLinear, Padding::kBorder, false, {}};
    ASSERT_TRUE(gridsample::Remap(x.View(), MakeTensor(DType::kFloat32, {1, 3, 3}, mx).View(),
                                  MakeTensor(DType::kFloat32, {1, 3, 3}, my).View(),
                                  y.MutableView(), o)
                    .ok());
    for (int64_t p = 0; p < 9; ++p) {
      for (int64_t k = 0; k < c; ++k) ASSERT_EQ(y.Get(p * c + k), want[p]) << p << ", C=" << c;
    }
  }
}

// The reference's pixel positions against an independent route in double: GridSample of a
// float64 X on the float64 grid of the exactly normalised positions (every mode, padding and
// align, positions inside and around X; far ones are PixelRule's). Within float32 rounding.
TEST(PixelRule, RemapFollowsTheNormalisedGridInDouble) {
  std::mt19937 rng(77);
  double worst = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const Shape s = RandomShape(rng, 3);
    const Tensor x = RandomTensor(rng, DType::kFloat32, {1, s.h, s.w, s.c});
    Tensor map(DType::kFloat32, {1, s.ho, s.wo, 2});
    for (int64_t p = 0; p < s.ho * s.wo; ++p) {
      map.Set(2 * p, std::uniform_real_distribution<float>(-2.0f * s.w, 3.0f * s.w)(rng));
      map.Set(2 * p + 1, std::uniform_real_distribution<float>(-2.0f * s.h, 3.0f * s.h)(rng));
    }
    Tensor x64(DType::kFloat64, {1, s.c, s.h, s.w});
    for (int64_t i = 0; i < s.h * s.w; ++i) {
      for (int64_t c = 0; c < s.c; ++c) x64.Set(c * s.h * s.w + i, x.Get(i * s.c + c));
    }
    for (Mode m : kModes) {
      for (Padding pad : kPaddings) {
        for (bool align : kAligns) {
          const GridSampleOptions o{m, pad, align, {}};
          Tensor grid(DType::kFloat64, {1, s.ho, s.wo, 2});
          for (int64_t p = 0; p < s.ho * s.wo; ++p) {
            for (int a = 0; a < 2; ++a) {
              const double u = map.Get(2 * p + a), size = a == 0 ? s.w : s.h;
              const double g =
                  align ? (size > 1 ? 2 * u / (size - 1) - 1 : 0) : (2 * u + 1) / size - 1;
              grid.Set(2 * p + a, g);
            }
          }
          Tensor want(DType::kFloat64, {1, s.c, s.ho, s.wo}),
              got(DType::kFloat32, {1, s.ho, s.wo, s.c});
          ASSERT_TRUE(
              gridsample::reference::GridSample(x64.View(), grid.View(), want.MutableView(), o)
                  .ok());
          ASSERT_TRUE(
              gridsample::reference::Remap(x.View(), map.View(), got.MutableView(), o).ok());
          for (int64_t p = 0; p < s.ho * s.wo; ++p) {
            for (int64_t c = 0; c < s.c; ++c) {
              const double e = want.Get(c * s.ho * s.wo + p), v = got.Get(p * s.c + c);
              // The exact g rounds in double; align 1 with S = 1 maps every u to pixel 0.
              const bool s1 = align && (s.w == 1 || s.h == 1);
              if (s1) continue;
              const double err = std::fabs(v - e);
              worst = std::max(worst, err);
              ASSERT_LE(err, 2e-5) << "at (" << map.Get(2 * p) << ", " << map.Get(2 * p + 1)
                                   << ") on " << s.h << "x" << s.w << " " << Describe(o);
            }
          }
        }
      }
    }
  }
  std::printf("reference Remap against the normalised grid in double: largest difference %g\n",
              worst);
}

}  // namespace
}  // namespace gridsample_test
