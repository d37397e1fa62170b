// Channels-last WarpAffine, WarpPerspective and Remap on cases worked by hand; empty outputs.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "channels_last_inputs.h"
#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// The documented meaning on a case worked by hand: a 2x2 RGBA image, identity theta with
// align_corners = 1 reproduces it; a horizontal flip mirrors it; a half-pixel shift averages
// neighbours (rounded half to even in uint8).
TEST(ChannelsLastPublic, HandWorkedRgba) {
  const std::vector<double> px = {10, 20,  30,  255, 50,  60,  70,  255,
                                  90, 100, 110, 0,   130, 140, 151, 0};
  const Tensor x = MakeTensor(DType::kUint8, {1, 2, 2, 4}, px);
  auto warp = [&](std::vector<double> t, const GridSampleOptions& o) {
    const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, t);
    Tensor y(DType::kUint8, {1, 2, 2, 4});
    EXPECT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), o).ok());
    std::vector<double> v;
    for (int64_t i = 0; i < y.size(); ++i) v.push_back(y.Get(i));
    return v;
  };
  const GridSampleOptions align{Mode::kLinear, Padding::kZeros, true, {}};
  EXPECT_EQ(warp({1, 0, 0, 0, 1, 0}, align), px);
  EXPECT_EQ(
      warp({-1, 0, 0, 0, 1, 0}, align),
      (std::vector<double>{50, 60, 70, 255, 10, 20, 30, 255, 130, 140, 151, 0, 90, 100, 110, 0}));
  // x shifted by half a pixel (1 in normalised units at width 2 with align 1), border:
  // column 0 averages columns 0 and 1 ((110 + 151) / 2 = 130.5 rounds to even 130), column 1
  // stays column 1 (its right tap clamps onto it).
  const GridSampleOptions border{Mode::kLinear, Padding::kBorder, true, {}};
  EXPECT_EQ(
      warp({1, 0, 1, 0, 1, 0}, border),
      (std::vector<double>{30, 40, 50, 255, 50, 60, 70, 255, 110, 120, 130, 0, 130, 140, 151, 0}));
  // y shifted by half a pixel: row 0 averages rows 0 and 1 (127.5 rounds to 128, 110.5 to 110).
  EXPECT_EQ(
      warp({1, 0, 0, 0, 1, 1}, border),
      (std::vector<double>{50, 60, 70, 128, 90, 100, 110, 128, 90, 100, 110, 0, 130, 140, 151, 0}));
}

// Worked by hand: the identity reproduces X in every mode and padding; an integer translation
// shifts it (border padding repeats the edge); a map whose w grows along the row puts output
// pixels 16 and 48 exactly on input columns 8 and 12 (x = j / w, w = 1 + j / 16); H = -I puts every
// point behind the camera: all 0.
TEST(ChannelsLastPublic, WarpPerspectiveHandWorked) {
  std::mt19937 rng(8);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 8, 64, 3});
  const Tensor x_align = RandomTensor(rng, DType::kFloat32, {1, 9, 65, 3});
  auto warp = [&](std::vector<double> m, int64_t ho, int64_t wo, const GridSampleOptions& o) {
    const Tensor h = MakeTensor(DType::kFloat64, {1, 3, 3}, m);
    Tensor y(DType::kFloat32, {1, ho, wo, 3});
    const Tensor& from = o.align_corners ? x_align : x;
    const Status s = gridsample::WarpPerspective(from.View(), h.View(), y.MutableView(), o);
    EXPECT_TRUE(s.ok()) << s.message();
    return y;
  };
  const auto at = [](const Tensor& t, int64_t i, int64_t j, int64_t c) {
    return t.Get((i * t.shape()[2] + j) * 3 + c);
  };
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        const GridSampleOptions o{m, pad, align, {}};
        const Tensor& from = align ? x_align : x;
        const int64_t ho = from.shape()[1], wo = from.shape()[2];
        const Tensor same = warp({1, 0, 0, 0, 1, 0, 0, 0, 1}, ho, wo, o);
        for (int64_t k = 0; k < from.size(); ++k) {
          ASSERT_EQ(same.Get(k), from.Get(k)) << Describe(o);
        }
        const Tensor zero = warp({-1, 0, 0, 0, -1, 0, 0, 0, -1}, ho, wo, o);
        for (int64_t k = 0; k < zero.size(); ++k) ASSERT_EQ(zero.Get(k), 0.0) << Describe(o);
      }
    }
  }
  const Tensor shifted =
      warp({1, 0, 3, 0, 1, -2, 0, 0, 1}, 8, 64, {Mode::kLinear, Padding::kBorder, false, {}});
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      for (int64_t c = 0; c < 3; ++c) {
        const int64_t si = std::clamp<int64_t>(i - 2, 0, 7), sj = std::clamp<int64_t>(j + 3, 0, 63);
        ASSERT_EQ(at(shifted, i, j, c), at(x, si, sj, c)) << "(" << i << ", " << j << ")";
      }
    }
  }
  const Tensor bent =
      warp({1, 0, 0, 0, 1, 0, 1.0 / 16, 0, 1}, 6, 64, {Mode::kNearest, Padding::kZeros, false, {}});
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_EQ(at(bent, i, 0, c), at(x, i, 0, c));
      // y = i / w too: rows i / 2 and i / 4, rounded half to even (nearest's rule).
      const auto row = [](double y) { return static_cast<int64_t>(std::nearbyint(y)); };
      EXPECT_EQ(at(bent, i, 16, c), at(x, row(i / 2.0), 8, c));
      EXPECT_EQ(at(bent, i, 48, c), at(x, row(i / 4.0), 12, c));
    }
  }
}

// Worked by hand, on sides that are not powers of two (positions are sampled as they are): an
// identity map reproduces X in every mode and padding; planes shifted by whole pixels with
// border padding repeat the edge; a huge finite position follows the padding rule (border: the
// edge pixel), an infinite one samples 0.
TEST(ChannelsLastPublic, RemapHandWorked) {
  constexpr int64_t kH = 7, kW = 13;
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, kH, kW, 2});
  Tensor map(DType::kFloat32, {1, kH, kW, 2}), mx(DType::kFloat32, {1, kH, kW}),
      my(DType::kFloat32, {1, kH, kW});
  for (int64_t i = 0; i < kH; ++i) {
    for (int64_t j = 0; j < kW; ++j) {
      map.Set(2 * (i * kW + j), j);
      map.Set(2 * (i * kW + j) + 1, i);
      mx.Set(i * kW + j, j + 2);
      my.Set(i * kW + j, i - 3);
    }
  }
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        const GridSampleOptions o{m, pad, align, {}};
        Tensor y(DType::kFloat32, {1, kH, kW, 2});
        ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), y.MutableView(), o).ok());
        for (int64_t k = 0; k < x.size(); ++k) ASSERT_EQ(y.Get(k), x.Get(k)) << Describe(o);
      }
    }
  }
  Tensor y(DType::kFloat32, {1, kH, kW, 2});
  const GridSampleOptions border{Mode::kLinear, Padding::kBorder, false, {}};
  ASSERT_TRUE(gridsample::Remap(x.View(), mx.View(), my.View(), y.MutableView(), border).ok());
  for (int64_t i = 0; i < kH; ++i) {
    for (int64_t j = 0; j < kW; ++j) {
      for (int64_t c = 0; c < 2; ++c) {
        const int64_t si = std::clamp<int64_t>(i - 3, 0, kH - 1);
        const int64_t sj = std::clamp<int64_t>(j + 2, 0, kW - 1);
        ASSERT_EQ(y.Get((i * kW + j) * 2 + c), x.Get((si * kW + sj) * 2 + c)) << i << ", " << j;
      }
    }
  }
  const Tensor far = MakeTensor(DType::kFloat32, {1, 1, 3, 2},
                                {std::numeric_limits<float>::max(), 0, -3e38, 5, kInf, 0});
  Tensor yf(DType::kFloat32, {1, 1, 3, 2});
  ASSERT_TRUE(gridsample::Remap(x.View(), far.View(), yf.MutableView(), border).ok());
  EXPECT_EQ(yf.Get(0), x.Get((kW - 1) * 2));  // row 0, last column
  EXPECT_EQ(yf.Get(2), x.Get((5 * kW) * 2));  // row 5, first column
  EXPECT_EQ(yf.Get(4), 0.0);                  // infinite: 0
}

TEST(ChannelsLastPublic, EmptyOutputsAndZeroChannelsSucceed) {
  std::mt19937 rng(3);
  const Tensor x = RandomTensor(rng, DType::kUint8, {1, 4, 4, 4});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  for (const std::vector<int64_t>& out : {std::vector<int64_t>{0, 5}, std::vector<int64_t>{5, 0}}) {
    Tensor y(DType::kUint8, {1, out[0], out[1], 4});
    EXPECT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView()).ok());
    Tensor grid(DType::kFloat32, {1, out[0], out[1], 2});
    EXPECT_TRUE(gridsample::GridSampleChannelsLast(x.View(), grid.View(), y.MutableView()).ok());
  }
  // Empty maps, their data pointer null (a fuzz finding: the interleaved map's y pointer was
  // made by adding to it).
  const int64_t empty_map_shape[4] = {1, 0, 5, 2};
  Tensor y_empty(DType::kUint8, {1, 0, 5, 4});
  EXPECT_TRUE(gridsample::Remap(x.View(), {nullptr, DType::kFloat32, empty_map_shape, 4},
                                y_empty.MutableView())
                  .ok());
  // C = 0: Y has no elements, nothing is read or written.
  const Tensor x0(DType::kFloat32, {1, 3, 3, 0});
  Tensor y0(DType::kFloat32, {1, 4, 4, 0});
  EXPECT_TRUE(gridsample::WarpAffine(x0.View(), theta.View(), y0.MutableView()).ok());
  // N = 0.
  const Tensor xn(DType::kFloat32, {0, 3, 3, 2});
  const Tensor tn(DType::kFloat32, {0, 2, 3});
  Tensor yn(DType::kFloat32, {0, 4, 4, 2});
  EXPECT_TRUE(gridsample::WarpAffine(xn.View(), tn.View(), yn.MutableView()).ok());
}

}  // namespace
}  // namespace gridsample_test
