// Channels-last float32 bilinear of one to three channels (blends/pixel_vectors-inl.h, a vector of
// pixels at a time) against the blend of a vector per pixel (blends/interleaved-inl.h) on every
// target, bit for bit: each channel of a 1-, 2- or 3-channel image must come out with exactly the
// bits of the same channel sampled as part of a 4-channel image (the same plans, the same sums
// from 0 in the same order), signed zeros, non-finite X, X's last pixel (read past by a vector
// per pixel at 3 channels) and folded border / reflection taps included; and with zeros padding,
// exactly the reference's bits.
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "api/reference_calls.h"
#include "channels_last_inputs.h"
#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
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

// Channels 0 .. channels - 1 of an interleaved (N, H, W, 4) float tensor.
Tensor FirstChannels(const Tensor& x4, int64_t channels) {
  const std::vector<int64_t>& s = x4.shape();
  Tensor x(DType::kFloat32, {s[0], s[1], s[2], channels});
  for (int64_t p = 0; p < x4.size() / 4; ++p) {
    for (int64_t c = 0; c < channels; ++c) x.Set(p * channels + c, x4.Get(p * 4 + c));
  }
  return x;
}

TEST_P(ChannelsLastPixelVectors, EqualTheBlendOfAVectorPerPixelAndTheReference) {
  std::mt19937 rng(4405);
  int64_t checked = 0;
  for (size_t side = 0; side < kSides.size(); ++side) {
    for (int iter = 0; iter < 4; ++iter) {
      const int64_t h = kSides[side][0], w = kSides[side][1], n = 1 + iter % 2;
      const int64_t ho = iter >= 2 ? 40 : 1 + (side + iter) % 7;
      const int64_t wo = iter >= 2 ? 37 : 1 + (3 * side + iter) % 9;
      // Four channels; the 1-, 2- and 3-channel images take channels 0 .. C - 1 of them.
      Tensor x4 = RandomTensor(rng, DType::kFloat32, {n, h, w, 4});
      if (iter == 3) {  // non-finite X: 0 * inf of zero-weight taps in both blends alike
        for (int64_t i = 0; i < x4.size(); i += 7) x4.Set(i, i % 3 ? kInf : kNaN);
      }
      std::vector<Tensor> xs;
      for (int64_t c = 1; c <= 3; ++c) xs.push_back(FirstChannels(x4, c));
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
          Tensor y4(DType::kFloat32, {n, ho, wo, 4}), want1(DType::kFloat32, {n, 1, ho, wo});
          ASSERT_TRUE(GridSampleChannelsLast(x4.View(), grid.View(), y4.MutableView(), o).ok());
          std::vector<Tensor> ys;
          for (int64_t c = 1; c <= 3; ++c) {
            ys.emplace_back(DType::kFloat32, std::vector<int64_t>{n, ho, wo, c});
            ASSERT_TRUE(
                GridSampleChannelsLast(xs[c - 1].View(), grid.View(), ys.back().MutableView(), o)
                    .ok());
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
          for (int64_t c = 0; c < 3; ++c) {
            const std::vector<uint32_t> four = ChannelBits(y4, 4, c);
            for (int64_t channels = c + 1; channels <= 3; ++channels) {
              const std::vector<uint32_t> got = ChannelBits(ys[channels - 1], channels, c);
              for (size_t i = 0; i < four.size(); ++i) {
                ASSERT_EQ(got[i], four[i])
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

}  // namespace
}  // namespace gridsample_test
