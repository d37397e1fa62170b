// The warps' matrices (gridsample/matrices.h) and the warps in every matrix space: inverses
// checked by multiplying back, OpenCV's documented rotation formula, four-point homographies by
// mapping their points, normalised and pixel-space warps against WarpPerspective on a matrix
// worked by hand, and the errors (non-finite, singular, inverse beyond double's range).
#include "gridsample/matrices.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gridsample/gridsample.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

using gridsample::GridSampleOptions;
using gridsample::MatrixSpace;
using gridsample::Mode;
using gridsample::Padding;
using gridsample::PixelHomography;
using gridsample::Sampler;
using gridsample::Status;
using gridsample::WarpSides;

void Multiply(const double* p, const double* q, double* r) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      r[i * 3 + j] = 0;
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += p[i * 3 + k] * q[k * 3 + j];
    }
  }
}

// m times its kPixel homography is the identity, relative to m's scale, for matrices of every
// magnitude (the determinant of 1e-200 I is 1e-600, below double's range).
TEST(Matrices, PixelInverseMultipliesBackToTheIdentity) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2, 2);
  for (double scale : {1.0, 1e-200, 1e200, 3e-5}) {
    for (int trial = 0; trial < 20; ++trial) {
      double m[9];
      for (double& v : m) v = u(rng) * scale;
      m[8] = trial % 2 ? m[8] : scale;
      double h[9], r[9];
      ASSERT_TRUE(PixelHomography(m, 3, MatrixSpace::kPixel, {}, false, h).ok());
      Multiply(m, h, r);
      for (int k = 0; k < 9; ++k) EXPECT_NEAR(r[k], k % 4 == 0 ? 1 : 0, 1e-9) << scale;
    }
  }
  // An affine matrix: bottom row (0, 0, 1), and an inverse exact in binary.
  const double m[6] = {2, 0, 6, 0, 4, -8};
  double h[9];
  ASSERT_TRUE(PixelHomography(m, 2, MatrixSpace::kPixel, {}, false, h).ok());
  const double want[9] = {0.5, 0, -3, 0, 0.25, 2, 0, 0, 1};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(h[k], want[k]) << k;
  ASSERT_TRUE(PixelHomography(m, 2, MatrixSpace::kPixelInverse, {}, false, h).ok());
  const double same[9] = {2, 0, 6, 0, 4, -8, 0, 0, 1};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(h[k], same[k]) << k;
}

TEST(Matrices, MatricesThatCannotBeInvertedAreNamedErrors) {
  double h[9];
  const double singular[6] = {1, 2, 0, 2, 4, 0};
  Status s = PixelHomography(singular, 2, MatrixSpace::kPixel, {}, false, h, "M");
  EXPECT_EQ(s.message(),
            "PixelHomography: M: it is singular (determinant 0), so it cannot be inverted; give "
            "the output-to-input map with MatrixSpace::kPixelInverse");
  const double nan[6] = {1, 0, NAN, 0, 1, 0};
  s = PixelHomography(nan, 2, MatrixSpace::kPixel, {}, false, h, "M");
  EXPECT_NE(s.message().find("M[2]: expected a finite number to invert the matrix, got NaN"),
            std::string::npos)
      << s.message();
  const double tiny[6] = {1e-310, 0, 0, 0, 1, 0};
  s = PixelHomography(tiny, 2, MatrixSpace::kPixel, {}, false, h, "M");
  EXPECT_NE(s.message().find("M: its inverse has entries beyond double's range"), std::string::npos)
      << s.message();
  // Non-finite entries pass where nothing is inverted (they sample nothing).
  EXPECT_TRUE(PixelHomography(nan, 2, MatrixSpace::kPixelInverse, {}, false, h).ok());
  EXPECT_TRUE(std::isnan(h[2]));
  EXPECT_FALSE(PixelHomography(nullptr, 2, MatrixSpace::kPixel, {}, false, h).ok());
  EXPECT_FALSE(PixelHomography(singular, 4, MatrixSpace::kPixel, {}, false, h).ok());
}

// A normalised matrix conjugated into pixels: the identity theta maps every pixel to the same
// pixel between images of one size (either align_corners), and a half-size output to the input
// pixels AffineGrid's base coordinates name.
TEST(Matrices, NormalizedMatricesBecomePixelMaps) {
  const double identity[6] = {1, 0, 0, 0, 1, 0};
  for (bool align : {false, true}) {
    double h[9];
    ASSERT_TRUE(
        PixelHomography(identity, 2, MatrixSpace::kNormalized, {5, 7, 5, 7}, align, h).ok());
    const double want[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(h[k], want[k], 1e-15) << k << " align " << align;
  }
  // X 8 wide, Y 4 wide, align 0: output pixel j has base coordinate (2j + 1) / 4 - 1, input
  // pixel ((g + 1) * 8 - 1) / 2 = 2j + 0.5.
  double h[9];
  ASSERT_TRUE(PixelHomography(identity, 2, MatrixSpace::kNormalized, {8, 8, 4, 4}, false, h).ok());
  for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(h[0] * j + h[2], 2 * j + 0.5);
}

// OpenCV's documented matrix: [a, b, (1 - a) cx - b cy; -b, a, b cx + (1 - a) cy], a = scale
// cos, b = scale sin; a quarter turn exact.
TEST(Matrices, RotationMatrixIsOpenCVs) {
  double m[6];
  ASSERT_TRUE(gridsample::RotationMatrix(3, 4, 30, 0.5, m).ok());
  const double a = 0.5 * std::cos(M_PI / 6), b = 0.5 * std::sin(M_PI / 6);
  const double want[6] = {a, b, (1 - a) * 3 - b * 4, -b, a, b * 3 + (1 - a) * 4};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(m[k], want[k], 1e-15) << k;
  ASSERT_TRUE(gridsample::RotationMatrix(1, 1, 90, 1, m).ok());
  const double quarter[6] = {0, 1, 0, -1, 0, 2};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(m[k], quarter[k]) << k;
  const Status s = gridsample::RotationMatrix(3, 4, 30, 1e308, m);
  EXPECT_NE(s.message().find("scale: 1e+308 about center [3, 4] gives entry 2 of the matrix "
                             "beyond double's range"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(gridsample::RotationMatrix(NAN, 4, 30, 1, m).ok());
}

// The homography maps each src point onto its dst point; three points on a line are an error.
TEST(Matrices, PerspectiveTransformMapsTheFourPoints) {
  const double quads[3][2][8] = {
      {{0, 0, 100, 0, 100, 50, 0, 50}, {10, 5, 90, 12, 95, 60, -3, 45}},
      {{1e6, 1e6, 1e6 + 3, 1e6, 1e6 + 3, 1e6 + 2, 1e6, 1e6 + 2}, {0, 0, 1, 0, 1, 1, 0, 1}},
      {{-1, -1, 1, -1, 1, 1, -1, 1}, {-2, -1, 2, -1, 1, 1, -1, 1}}};
  for (const auto& q : quads) {
    double h[9];
    ASSERT_TRUE(gridsample::PerspectiveTransform(q[0], q[1], h).ok());
    for (int i = 0; i < 4; ++i) {
      const double x = q[0][2 * i], y = q[0][2 * i + 1];
      const double w = h[6] * x + h[7] * y + h[8];
      EXPECT_NEAR((h[0] * x + h[1] * y + h[2]) / w, q[1][2 * i], 1e-6) << i;
      EXPECT_NEAR((h[3] * x + h[4] * y + h[5]) / w, q[1][2 * i + 1], 1e-6) << i;
    }
  }
  const double line[8] = {0, 0, 1, 1, 2, 2, 0, 5};
  double h[9];
  const Status s = gridsample::PerspectiveTransform(line, quads[0][1], h);
  EXPECT_NE(s.message().find("src: points 0, 1 and 2 lie on one line"), std::string::npos)
      << s.message();
}

// The warps in each space equal WarpPerspective by the homography worked by hand, bit for bit;
// a Sampler inverts at each run and reports a singular matrix there, writing nothing.
TEST(Matrices, WarpsInEverySpaceAreWarpPerspectiveByTheirHomography) {
  std::mt19937 rng(11);
  const Tensor x = RandomTensor(rng, DType::kUint8, {1, 9, 12, 4});
  Tensor want(DType::kUint8, {1, 6, 8, 4}), got(DType::kUint8, {1, 6, 8, 4});
  GridSampleOptions o;
  o.mode = Mode::kLinear;
  o.padding = Padding::kBorder;
  const Tensor m = MakeTensor(DType::kFloat64, {1, 2, 3}, {2, 0, 6, 0, 4, -8});
  const Tensor inverse = MakeTensor(DType::kFloat64, {1, 3, 3}, {0.5, 0, -3, 0, 0.25, 2, 0, 0, 1});
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), inverse.View(), want.MutableView(), o).ok());
  ASSERT_TRUE(
      gridsample::WarpAffine(x.View(), m.View(), got.MutableView(), o, nullptr, MatrixSpace::kPixel)
          .ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
  // A normalised homography: theta with bottom row (0, 0, 1), conjugated as above.
  const Tensor theta = MakeTensor(DType::kFloat64, {1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  double h[9];
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  ASSERT_TRUE(PixelHomography(identity, 3, MatrixSpace::kNormalized, {9, 12, 6, 8}, false, h).ok());
  const Tensor hand = MakeTensor(DType::kFloat64, {1, 3, 3},
                                 {h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]});
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), hand.View(), want.MutableView(), o).ok());
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), theta.View(), got.MutableView(), o, nullptr,
                                          MatrixSpace::kNormalized)
                  .ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);

  Sampler pixel;
  const TensorView y_spec = {nullptr, DType::kUint8, want.shape().data(), 4};
  ASSERT_TRUE(
      Sampler::WarpAffine(x.View(), m.View(), y_spec, o, nullptr, MatrixSpace::kPixel, &pixel)
          .ok());
  const Tensor singular = MakeTensor(DType::kFloat64, {1, 2, 3}, {1, 2, 0, 2, 4, 0});
  got.FillBytes(7);
  const Status s = pixel.Run(x.data(), singular.data(), got.data());
  EXPECT_NE(s.message().find("WarpAffine: M: it is singular"), std::string::npos) << s.message();
  for (int64_t i = 0; i < got.size(); ++i) ASSERT_EQ(got.Get(i), 7) << i;
  ASSERT_TRUE(pixel.Run(x.data(), m.data(), got.data()).ok());
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), inverse.View(), want.MutableView(), o).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
}

// A batch of pixel-space matrices, inverted per item at each run: a few items' homographies on the
// stack, more in an allocation; each item equals WarpPerspective by its inverse worked by hand.
TEST(Matrices, BatchesOfPixelMatricesInvertEachItem) {
  std::mt19937 rng(12);
  for (int64_t n : {3, 8, 9, 11}) {
    const Tensor x = RandomTensor(rng, DType::kFloat32, {n, 7, 10, 3});
    Tensor got(DType::kFloat32, {n, 5, 6, 3});
    std::vector<double> m, inverse;
    for (int64_t i = 0; i < n; ++i) {  // scale s and shift t: inverse 1 / s, -t / s
      const double sx = 0.5 + 0.25 * static_cast<double>(i % 4),
                   sy = 2.0 - 0.5 * static_cast<double>(i % 3);
      const double tx = static_cast<double>(i) - 3, ty = 1.5 - static_cast<double>(i % 5);
      m.insert(m.end(), {sx, 0, tx, 0, sy, ty});
      inverse.insert(inverse.end(), {1 / sx, 0, -tx / sx, 0, 1 / sy, -ty / sy, 0, 0, 1});
    }
    GridSampleOptions o;
    o.mode = Mode::kLinear;
    ASSERT_TRUE(gridsample::WarpAffine(x.View(), MakeTensor(DType::kFloat64, {n, 2, 3}, m).View(),
                                       got.MutableView(), o, nullptr, MatrixSpace::kPixel)
                    .ok());
    Tensor want(DType::kFloat32, {n, 5, 6, 3});
    ASSERT_TRUE(gridsample::WarpPerspective(x.View(),
                                            MakeTensor(DType::kFloat64, {n, 3, 3}, inverse).View(),
                                            want.MutableView(), o)
                    .ok());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0) << n << " items";
  }
}

// A band of rows of a normalised warp is those rows of the whole output (the conjugation uses
// the whole output's height).
TEST(Matrices, BandsOfANormalizedHomographyAreRowsOfTheWhole) {
  std::mt19937 rng(13);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 10, 11, 3});
  Tensor whole(DType::kFloat32, {1, 9, 7, 3}), band(DType::kFloat32, {1, 4, 7, 3});
  const Tensor h =
      MakeTensor(DType::kFloat32, {1, 3, 3}, {0.9, 0.1, 0.05, -0.2, 1.1, 0, 0.1, 0, 1});
  GridSampleOptions o;
  o.padding = Padding::kReflection;
  o.align_corners = true;
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), h.View(), whole.MutableView(), o, nullptr,
                                          MatrixSpace::kNormalized)
                  .ok());
  ASSERT_TRUE(gridsample::WarpPerspectiveRows(x.View(), h.View(), band.MutableView(), {9, 3}, o,
                                              nullptr, MatrixSpace::kNormalized)
                  .ok());
  EXPECT_EQ(std::memcmp(band.data(), static_cast<const char*>(whole.data()) + 3 * 7 * 3 * 4,
                        band.bytes()),
            0);
}

}  // namespace
}  // namespace gridsample_test
