// The image warps' fill colour (zeros padding's BORDER_CONSTANT value) against two oracles, on
// every target; its validation.
//
// Oracles: (1) a warp with fill equals, for float64 images (the reference), fill plus the
// zeros-padded warp of X - fill, since every mode's weights sum to 1; (2) remap with fill equals
// border padding on X framed by two pixels of fill, the coordinates moved by two. The fast paths
// and the reference both add fill * (1 - the weights inside X, in order) once: the same values
// (uint8 bilinear's fixed-point blend: 1 level).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The three warps with fill, one signature: `m` is theta, H or an interleaved map.
enum class Warp { kAffine, kPerspective, kRemap };
constexpr Warp kWarps[] = {Warp::kAffine, Warp::kPerspective, Warp::kRemap};

const char* WarpName(Warp w) {
  return w == Warp::kAffine ? "WarpAffine" : w == Warp::kPerspective ? "WarpPerspective" : "Remap";
}

Status RunWarp(Warp w, const Tensor& x, const Tensor& m, Tensor* y, const GridSampleOptions& o,
               const double* fill) {
  switch (w) {
    case Warp::kAffine:
      return gridsample::WarpAffine(x.View(), m.View(), y->MutableView(), o, fill);
    case Warp::kPerspective:
      return gridsample::WarpPerspective(x.View(), m.View(), y->MutableView(), o, fill);
    default: return gridsample::Remap(x.View(), m.View(), y->MutableView(), o, fill);
  }
}

// The reference's result for the same call.
void RunReference(Warp w, const Tensor& x, const Tensor& m, Tensor* y, const GridSampleOptions& o,
                  const double* fill) {
  const auto& s = y->shape();
  const gridsample::ChannelsLastGeometry geo{
      x.shape()[0], x.shape()[3], x.shape()[1], x.shape()[2], s[1], s[2], 0, s[1]};
  gridsample::PixelsProblem::Source source = gridsample::MapPairsAt{m.View()};
  if (w == Warp::kAffine) source = gridsample::AffineAt{m.View()};
  if (w == Warp::kPerspective) source = gridsample::PerspectiveAt{m.View()};
  gridsample::reference::Run({geo, x.View(), source, y->MutableView(), o, fill});
}

// A matrix for `w` on an in_h x in_w image warped to ho x wo: rotations and zooms that take
// part of the output outside X; homographies whose horizon crosses the output (w <= 0 there);
// maps reaching 6 pixels outside, with some NaN.
Tensor RandomMatrix(std::mt19937& rng, Warp w, int64_t in_h, int64_t in_w, int64_t ho, int64_t wo) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (w == Warp::kAffine) {
    const double a = 3.2 * u(rng), s = 1.0 + 0.5 * u(rng);
    return MakeTensor(DType::kFloat32, {1, 2, 3},
                      {s * std::cos(a), -s * std::sin(a), 0.4 * u(rng), s * std::sin(a),
                       s * std::cos(a), 0.4 * u(rng)});
  }
  if (w == Warp::kPerspective) {
    // Output pixels to input pixels, w = 1 + p j + q i crossing 0 inside the output now and then.
    const double p = 1.5 * u(rng) / static_cast<double>(wo),
                 q = 1.5 * u(rng) / static_cast<double>(ho);
    return MakeTensor(DType::kFloat64, {1, 3, 3},
                      {1.1 + 0.3 * u(rng), 0.2 * u(rng), 3 * u(rng), 0.2 * u(rng),
                       0.9 + 0.3 * u(rng), 3 * u(rng), p, q, 1.0});
  }
  Tensor map(DType::kFloat32, {1, ho, wo, 2});
  for (int64_t p = 0; p < ho * wo; ++p) {
    map.Set(2 * p, RandomDyadic(rng, -6.0, static_cast<double>(in_w) + 6.0));
    map.Set(2 * p + 1, RandomDyadic(rng, -6.0, static_cast<double>(in_h) + 6.0));
    if (p % 37 == 5) map.Set(2 * p + (p % 2), kNaN);
  }
  return map;
}

std::vector<double> RandomFill(std::mt19937& rng, int64_t c, double lo, double hi) {
  std::vector<double> fill;
  for (int64_t k = 0; k < c; ++k) fill.push_back(RandomDyadic(rng, lo, hi));
  return fill;
}

// Oracle (1), on the reference: float64 images always take it.
TEST(WarpFill, EqualsFillPlusTheZerosWarpOfXMinusFill) {
  std::mt19937 rng(71);
  int64_t outside = 0;  // outputs that some fill reached
  for (int iter = 0; iter < 12; ++iter) {
    const int64_t h = 3 + iter % 7, w = 4 + iter % 5, c = 1 + iter % 4, ho = 9, wo = 11;
    const Tensor x = RandomTensor(rng, DType::kFloat64, {1, h, w, c});
    const std::vector<double> fill = RandomFill(rng, c, -3.0, 3.0);
    Tensor shifted(DType::kFloat64, {1, h, w, c});
    for (int64_t k = 0; k < x.size(); ++k) shifted.Set(k, x.Get(k) - fill[k % c]);
    for (Warp warp : kWarps) {
      const Tensor m = RandomMatrix(rng, warp, h, w, ho, wo);
      for (Mode mode : kModes) {
        for (bool align : kAligns) {
          const GridSampleOptions o{mode, Padding::kZeros, align, {}};
          Tensor y(DType::kFloat64, {1, ho, wo, c}), z(DType::kFloat64, {1, ho, wo, c});
          ASSERT_TRUE(RunWarp(warp, x, m, &y, o, fill.data()).ok());
          ASSERT_TRUE(RunWarp(warp, shifted, m, &z, o, nullptr).ok());
          for (int64_t k = 0; k < y.size(); ++k) {
            const double want = fill[k % c] + z.Get(k);
            ASSERT_NEAR(y.Get(k), want, 1e-12)
                << WarpName(warp) << " " << Describe(o) << " at " << k;
            if (z.Get(k) == 0.0) ++outside;
          }
        }
      }
    }
  }
  EXPECT_GT(outside, 1000);  // the cases reach outside X
}

// Oracle (2): per tap, a tap outside X reads fill, as border padding reads X framed by fill.
TEST(WarpFill, RemapEqualsBorderPaddingOnXFramedByFill) {
  std::mt19937 rng(72);
  for (int iter = 0; iter < 8; ++iter) {
    const int64_t h = 4 + iter % 5, w = 5 + iter % 3, c = 1 + iter % 4, ho = 7, wo = 13;
    const Tensor x = RandomTensor(rng, DType::kFloat32, {1, h, w, c});
    const std::vector<double> fill = RandomFill(rng, c, -4.0, 4.0);
    constexpr int64_t kFrame = 2;  // a cubic window reaches 2 pixels out
    Tensor framed(DType::kFloat32, {1, h + 2 * kFrame, w + 2 * kFrame, c});
    for (int64_t i = 0; i < h + 2 * kFrame; ++i) {
      for (int64_t j = 0; j < w + 2 * kFrame; ++j) {
        const bool inside = i >= kFrame && i < h + kFrame && j >= kFrame && j < w + kFrame;
        for (int64_t k = 0; k < c; ++k) {
          framed.Set((i * (w + 2 * kFrame) + j) * c + k,
                     inside ? x.Get(((i - kFrame) * w + j - kFrame) * c + k) : fill[k]);
        }
      }
    }
    Tensor map = RandomMatrix(rng, Warp::kRemap, h, w, ho, wo),
           moved(DType::kFloat32, {1, ho, wo, 2});
    for (int64_t k = 0; k < map.size(); ++k) {
      if (std::isnan(map.Get(k))) map.Set(k, 0.25);  // non-finite gives fill, not border's pixel
      // Nearest's ties (x.5) may round either way after normalising on different sizes.
      if (map.Get(k) - std::floor(map.Get(k)) == 0.5) map.Set(k, map.Get(k) + 1.0 / 64);
      moved.Set(k, map.Get(k) + kFrame);
    }
    for (Mode mode : kModes) {
      Tensor y(DType::kFloat32, {1, ho, wo, c}), want(DType::kFloat32, {1, ho, wo, c});
      ASSERT_TRUE(
          RunWarp(Warp::kRemap, x, map, &y, {mode, Padding::kZeros, false, {}}, fill.data()).ok());
      ASSERT_TRUE(
          RunWarp(Warp::kRemap, framed, moved, &want, {mode, Padding::kBorder, false, {}}, nullptr)
              .ok());
      for (int64_t k = 0; k < y.size(); ++k) {
        // The two normalise positions on axes of different sizes: float32 rounding apart.
        ASSERT_NEAR(y.Get(k), want.Get(k), 2e-5) << ModeName(mode) << " at " << k;
      }
    }
  }
}

// The fast paths (uint8 and float32, any channel count: one vector per pixel up to 4, vectors of
// channels beyond) against the reference with the same fill, including fill values a uint8
// store saturates.
class WarpFillFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(WarpFillFast);

TEST_P(WarpFillFast, MatchesTheReference) {
  std::mt19937 rng(73);
  int64_t filled = 0;
  for (int iter = 0; iter < 16; ++iter) {
    const DType dtype = iter % 2 ? DType::kUint8 : DType::kFloat32;
    const int64_t kChannels[] = {1, 2, 3, 4, 5, 8, 33, 3};
    const int64_t h = 4 + iter % 9, w = 4 + iter % 6, c = kChannels[iter / 2], ho = 10, wo = 21;
    const Tensor x = RandomTensor(rng, dtype, {1, h, w, c});
    const std::vector<double> fill =
        dtype == DType::kUint8 ? RandomFill(rng, c, -20.0, 280.0) : RandomFill(rng, c, -4.0, 4.0);
    for (Warp warp : kWarps) {
      const Tensor m = RandomMatrix(rng, warp, h, w, ho, wo);
      for (Mode mode : kModes) {
        for (bool align : kAligns) {
          const GridSampleOptions o{mode, Padding::kZeros, align, {}};
          Tensor y(dtype, {1, ho, wo, c}), want(dtype, {1, ho, wo, c}), bare(dtype, {1, ho, wo, c});
          ASSERT_TRUE(RunWarp(warp, x, m, &y, o, fill.data()).ok());
          RunReference(warp, x, m, &want, o, fill.data());
          RunReference(warp, x, m, &bare, o, nullptr);
          for (int64_t k = 0; k < y.size(); ++k) {
            // float32: the same bits' value (fill added once with the weight left outside X, as
            // the reference does); uint8 bilinear: the fixed-point blend's one level.
            const double tolerance = dtype == DType::kUint8 ? 1.0 : 0.0;
            ASSERT_NEAR(y.Get(k), want.Get(k), tolerance)
                << WarpName(warp) << " " << Describe(o) << " " << DTypeName(dtype) << " c=" << c
                << " at " << k;
            if (want.Get(k) != bare.Get(k)) ++filled;
          }
        }
      }
    }
  }
  EXPECT_GT(filled, 5000);
}

// A call is rejected, naming fill, and writes nothing.
TEST(WarpFill, Validation) {
  const Tensor x(DType::kUint8, {1, 4, 5, 3});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const double ok[3] = {1, 2, 3}, bad[3] = {1, kNaN, 3},
               inf[3] = {std::numeric_limits<double>::infinity(), 0, 0};
  Tensor y(DType::kUint8, {1, 4, 5, 3});
  y.FillBytes(0xAB);
  const auto expect = [&](const Status& s, const std::string& text) {
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
    EXPECT_TRUE(y.AllBytesAre(0xAB)) << "written on error: " << s.message();
  };
  expect(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(),
                                {Mode::kLinear, Padding::kBorder, false, {}}, ok),
         "WarpAffine: fill: applies to zeros padding only, got padding border");
  expect(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), {}, bad),
         "WarpAffine: fill: expected finite values within float32's range, got NaN for channel 1");
  const Tensor h = MakeTensor(DType::kFloat32, {1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  expect(gridsample::WarpPerspective(x.View(), h.View(), y.MutableView(), {}, inf),
         "WarpPerspective: fill: expected finite values within float32's range, got inf for "
         "channel 0");
  const double huge[3] = {0, 0, 1e39};
  expect(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), {}, huge),
         "WarpAffine: fill: expected finite values within float32's range, got a value beyond "
         "3.4e38 for channel 2");
  // float64 images compute in double: 1e39 is a colour there.
  const Tensor x64(DType::kFloat64, {1, 4, 5, 3});
  Tensor y64(DType::kFloat64, {1, 4, 5, 3});
  EXPECT_TRUE(gridsample::WarpAffine(x64.View(), theta.View(), y64.MutableView(), {}, huge).ok());
  Tensor map(DType::kFloat32, {1, 4, 5, 2});
  expect(gridsample::Remap(x.View(), map.View(), y.MutableView(),
                           {Mode::kCubic, Padding::kReflection, false, {}}, ok),
         "Remap: fill: applies to zeros padding only, got padding reflection");
  // And the module still works: the identity with fill reproduces X.
  ASSERT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(),
                                     {Mode::kLinear, Padding::kZeros, false, {}}, ok)
                  .ok());
}

}  // namespace
}  // namespace gridsample_test
