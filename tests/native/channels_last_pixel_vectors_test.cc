// Channels-last float32 bilinear of 1, 2 and 3 channels (blends/pixel_vectors-inl.h, a vector
// of pixels at a time) and 5 (interleaved-inl.h's BlendFivePixels, two overlapping vectors a
// pixel) against the blend of a vector per pixel (blends/interleaved-inl.h, wide_pixels-inl.h)
// on every target, bit for bit: each channel of a 1- to 5-channel image must
// come out with exactly the bits of the same channel sampled as part of an 8-channel image (the
// same plans, the same sums from 0 in the same order), signed zeros, non-finite X, X's last pixel
// (read past by a vector per pixel at 3 channels) and folded border / reflection taps included;
// with zeros padding, exactly the reference's bits. And GridSampleChannelsLast against GridSample
// on the transposed data, every mode, non-finite X included.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "api/reference_calls.h"
#include "channels_last_inputs.h"
#include "gridsample/grid_sample.h"
#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "oracles.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

class ChannelsLastPixelVectors : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(ChannelsLastPixelVectors);

// X sides (H, W): the smallest windows, and images whose grids of 40 x 37 points cross column
// tiles and end in partial vectors.
const std::vector<std::vector<int64_t>> kSides = {{2, 2}, {3, 4}, {7, 5}, {3, 11}, {19, 23}};

// Channel `c` of an interleaved (N, Ho, Wo, C) float tensor, as raw bits.
std::vector<uint32_t> ChannelBits(const Tensor& y, int64_t channels, int64_t c) {
  std::vector<uint32_t> bits(static_cast<size_t>(y.size() / channels));
  const auto* v = static_cast<const uint32_t*>(y.data());
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = v[i * channels + c];
  return bits;
}

// The widest image the test takes channels from (a vector per pixel, two vectors of 4).
constexpr int64_t kWide = 8;

// Channels 0 .. channels - 1 of an interleaved (N, H, W, kWide) float tensor.
Tensor FirstChannels(const Tensor& wide, int64_t channels) {
  const std::vector<int64_t>& s = wide.shape();
  Tensor x(DType::kFloat32, {s[0], s[1], s[2], channels});
  for (int64_t p = 0; p < wide.size() / kWide; ++p) {
    for (int64_t c = 0; c < channels; ++c) x.Set(p * channels + c, wide.Get(p * kWide + c));
  }
  return x;
}

// The channel counts of the vector-of-pixels blend and of the two vectors a pixel (5), and 4 (a
// pixel per vector).
constexpr int64_t kChannelCounts[] = {1, 2, 3, 4, 5};

TEST_P(ChannelsLastPixelVectors, EqualTheBlendOfAVectorPerPixelAndTheReference) {
  std::mt19937 rng(4405);
  int64_t checked = 0;
  for (size_t side = 0; side < kSides.size(); ++side) {
    for (int iter = 0; iter < 4; ++iter) {
      const int64_t h = kSides[side][0], w = kSides[side][1], n = 1 + iter % 2;
      const int64_t ho = iter >= 2 ? 40 : 1 + (side + iter) % 7;
      const int64_t wo = iter >= 2 ? 37 : 1 + (3 * side + iter) % 9;
      // kWide channels; the smaller images take channels 0 .. C - 1 of them.
      Tensor x8 = RandomTensor(rng, DType::kFloat32, {n, h, w, kWide});
      if (iter == 3) {  // non-finite X: 0 * inf of zero-weight taps in both blends alike
        for (int64_t i = 0; i < x8.size(); i += 7) x8.Set(i, i % 3 ? kInf : kNaN);
      }
      std::vector<Tensor> xs;
      for (int64_t c : kChannelCounts) xs.push_back(FirstChannels(x8, c));
      Tensor x1_planes(DType::kFloat32, {n, 1, h, w});
      std::memcpy(x1_planes.data(), xs[0].data(), xs[0].bytes());
      Tensor grid(DType::kFloat32, {n, ho, wo, 2});
      for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
      const float firsts[] = {kNaN, 0.25f, kInf, -kInf, 3e38f, -0.5f, -3e38f, 1e30f};
      for (int64_t i = 0; i < 8 && i < grid.size(); ++i) grid.Set(i, firsts[i]);
      for (Padding padding : kPaddings) {
        for (bool align : kAligns) {
          GridSampleOptions o;
          o.mode = Mode::kLinear;
          o.padding = padding;
          o.align_corners = align;
          using gridsample::GridSampleChannelsLast;
          Tensor y8(DType::kFloat32, {n, ho, wo, kWide}), want1(DType::kFloat32, {n, 1, ho, wo});
          ASSERT_TRUE(GridSampleChannelsLast(x8.View(), grid.View(), y8.MutableView(), o).ok());
          std::vector<Tensor> ys;
          for (const Tensor& x : xs) {
            const int64_t c = x.shape()[3];
            ys.emplace_back(DType::kFloat32, std::vector<int64_t>{n, ho, wo, c});
            ASSERT_TRUE(
                GridSampleChannelsLast(x.View(), grid.View(), ys.back().MutableView(), o).ok());
          }
          // One channel: (N, H, W, 1) is (N, 1, H, W), and (N, Ho, Wo, 1) is (N, 1, Ho, Wo).
          ASSERT_TRUE(gridsample::reference::GridSample(x1_planes.View(), grid.View(),
                                                        want1.MutableView(), o)
                          .ok());
          const auto where = [&](size_t i) {
            return ::testing::Message()
                   << "point " << i << " of X " << n << "x" << h << "x" << w << ", grid " << ho
                   << "x" << wo << ", " << Describe(o) << (iter == 3 ? ", non-finite X" : "")
                   << " on " << target();
          };
          const std::vector<uint32_t> ref = ChannelBits(want1, 1, 0);
          for (size_t k = 0; k < ys.size(); ++k) {
            const int64_t channels = kChannelCounts[k];
            for (int64_t c = 0; c < channels; ++c) {
              const std::vector<uint32_t> wide = ChannelBits(y8, kWide, c);
              const std::vector<uint32_t> got = ChannelBits(ys[k], channels, c);
              for (size_t i = 0; i < wide.size(); ++i) {
                ASSERT_EQ(got[i], wide[i])
                    << "C = " << channels << ", channel " << c << ", " << where(i);
                ++checked;
              }
            }
          }
          // Zeros padding folds no taps: the reference's bits (finite X; README, "Accuracy").
          if (padding == Padding::kZeros && iter != 3) {
            const std::vector<uint32_t> one = ChannelBits(ys[0], 1, 0);
            for (size_t i = 0; i < one.size(); ++i) {
              ASSERT_EQ(one[i], ref[i]) << "C = 1 against the reference, " << where(i);
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
}

// Channels-last is a layout, not another operator: GridSampleChannelsLast equals GridSample on
// the transposed data in every mode and padding, up to the sign of a zero (README, "Accuracy"),
// also where X holds Inf and NaN and points lie wholly outside X (zeros padding): both fast paths
// blend such a point's window, 0 * Inf included, as the reference does for finite coordinates.
// (The channels-last path once stored 0 there without blending: NaN on NCHW, 0 here.) The
// scalar target runs the references, which store 0 for a non-finite coordinate where the fast
// paths blend a window of weight 0: non-finite X is outside the accuracy contract, so there X
// is finite.
TEST_P(ChannelsLastPixelVectors, EqualGridSampleOnTransposedDataNonFiniteXIncluded) {
  std::mt19937 rng(4406);
  const bool non_finite_x = target() != "SCALAR";
  int64_t checked = 0, nan_checked = 0;
  for (int64_t channels : kChannelCounts) {
    const int64_t n = 2, h = 9, w = 7, ho = 6, wo = 11;
    Tensor x = RandomTensor(rng, DType::kFloat32, {n, h, w, channels});
    for (int64_t i = 0; non_finite_x && i < x.size(); i += 5) x.Set(i, i % 2 ? kInf : kNaN);
    Tensor grid(DType::kFloat32, {n, ho, wo, 2});
    for (int64_t i = 0; i < grid.size(); ++i) {
      // A third of the points wholly outside X, the rest anywhere.
      grid.Set(i,
               i % 6 < 2 ? (i % 4 < 2 ? -1.0f : 1.0f) * (1.5f + (i % 5)) : HostileCoordinate(rng));
    }
    const Tensor planes = Transposed(x, true);
    for (Mode mode : kModes) {
      for (Padding padding : kPaddings) {
        for (bool align : kAligns) {
          GridSampleOptions o;
          o.mode = mode;
          o.padding = padding;
          o.align_corners = align;
          Tensor y(DType::kFloat32, {n, ho, wo, channels}),
              y_planes(DType::kFloat32, {n, channels, ho, wo});
          ASSERT_TRUE(
              gridsample::GridSampleChannelsLast(x.View(), grid.View(), y.MutableView(), o).ok());
          ASSERT_TRUE(
              gridsample::GridSample(planes.View(), grid.View(), y_planes.MutableView(), o).ok());
          const Tensor want = Transposed(y_planes, false);
          for (int64_t i = 0; i < y.size(); ++i) {
            const float got = y.Get(i), expected = want.Get(i);
            if (std::isnan(expected)) {
              ASSERT_TRUE(std::isnan(got)) << "element " << i << " of C = " << channels << ", "
                                           << Describe(o) << " on " << target() << ": " << got;
              ++nan_checked;
            } else {
              ASSERT_EQ(got, expected) << "element " << i << " of C = " << channels << ", "
                                       << Describe(o) << " on " << target();
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 0);
  if (non_finite_x) {
    EXPECT_GT(nan_checked, 0);
  }
}

}  // namespace
}  // namespace gridsample_test
