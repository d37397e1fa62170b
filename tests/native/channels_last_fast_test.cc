// Channels-last GridSample, WarpAffine, WarpPerspective and Remap against the reference.
//
// On every target (ChannelsLastFast), and through the public API over every dtype and channel
// count (ChannelsLastPublic).
//
// The oracle is X transposed to NCHW + reference::AffineGrid (or WarpPerspective's grid) +
// reference::GridSample (fast_path_tester.h); WarpPerspective's coordinate rule is tested
// against the exact projection in double in warp_perspective_rule_test.cc. The channels-last fast
// paths share NCHW's planner and its accuracy contract (README, "Accuracy"): bit for bit (the
// reference's taps, weights, summation order and rounding; the generic path calls the reference's
// own per-axis code), except where border or reflection padding adds the weights of taps on one
// pixel, and uint8 bilinear, whose fixed-point blend is within 1 level by construction
// (src/kernels/blends/fixed_point_u8-inl.h): there the tests allow 1 and also bound how often it is
// used.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "channels_last_inputs.h"
#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// --- fast paths on every target --------------------------------------------------------------

class ChannelsLastFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(ChannelsLastFast);

// The fast channels-last paths take uint8 / float32 X (grid float32; theta float32 or float64)
// on every target but SCALAR, and equal the reference bit for bit. Here 1 to 4 channels, one
// vector per pixel; channels_last_wide_test.cc tests more.
TEST_P(ChannelsLastFast, GridSampleMatchesReference) {
  Tally tally;
  std::mt19937 rng(2024);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
      Tensor grid(DType::kFloat32, {s.n, s.ho, s.wo, 2});
      for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
      TestEveryOption(
          Op::kGridSampleChannelsLast, dtype, [&](FastPathTester& t) { t.x(x).grid(grid); }, true,
          &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(tally.runs, 40 * 2 * 18);
  std::printf(
      "channels-last GridSample: %lld runs as promised on %s (%lld uint8 bilinear runs "
      "with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, WarpAffineMatchesAffineGridPlusGridSample) {
  Tally tally;
  std::mt19937 rng(77);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (DType theta_dtype : {DType::kFloat32, DType::kFloat64}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        const Tensor theta = HostileTheta(rng, theta_dtype, s.n);
        TestEveryOption(
            Op::kWarpAffine, dtype,
            [&](FastPathTester& t) {
              t.x(x).theta(theta).out({s.ho, s.wo});
            },
            true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "WarpAffine: %lld runs as promised against AffineGrid + GridSample on %s (%lld "
      "uint8 bilinear runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, WarpPerspectiveMatchesGridSampleOnItsGrid) {
  Tally tally;
  std::mt19937 rng(1789);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (DType h_dtype : {DType::kFloat32, DType::kFloat64}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        const Tensor h = HostileHomography(rng, h_dtype, s.n, s.h, s.w, s.ho, s.wo);
        TestEveryOption(
            Op::kWarpPerspective, dtype,
            [&](FastPathTester& t) {
              t.x(x).theta(h).out({s.ho, s.wo});
            },
            true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "WarpPerspective: %lld runs as promised against GridSample on its grid on %s (%lld "
      "uint8 bilinear runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, RemapMatchesReference) {
  Tally tally;
  std::mt19937 rng(1808);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (bool planes : {false, true}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        TestRemapEveryOption(rng, x, dtype, planes, s.ho, s.wo, true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "Remap: %lld runs as promised against the reference on %s (%lld uint8 bilinear "
      "runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

// Wide outputs cross the kernels' column tiles (512 pixels); three channels end rows exactly.
TEST_P(ChannelsLastFast, WideOutputsCrossColumnTiles) {
  std::mt19937 rng(5);
  for (int64_t c : {3, 4}) {
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {1, 7, 23, c});
      const Tensor theta =
          MakeTensor(DType::kFloat32, {1, 2, 3}, {1.1, 0.2, -0.05, -0.15, 0.9, 0.1});
      const Tensor h = MakeTensor(DType::kFloat64, {1, 3, 3},
                                  {0.02, 0.001, 0.5, 0.0005, 0.9, 0.2, 0.0001, 0.0003, 1.0});
      for (Mode m : kModes) {
        ChannelsLastTester(Op::kWarpAffine, dtype, m, Padding::kBorder)
            .x(x)
            .theta(theta)
            .out({3, 1100})
            .align(false)
            .Test();
        if (HasFatalFailure()) return;
        ChannelsLastTester(Op::kWarpPerspective, dtype, m, Padding::kReflection)
            .x(x)
            .theta(h)
            .out({3, 1100})
            .align(false)
            .Test();
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The fixed-point uint8 bilinear blend against the reference where it is hardest: images of
// 0 and 255 only (every pixel an edge of full contrast), sides up to the fixed path's limit
// (4096, where positions are least precise), all channel counts, many affine maps. Every
// value within 1 level; and few differ at all (the blend is not merely within 1 but close:
// a coarser weight or position would show here first).
TEST_P(ChannelsLastFast, FixedPointBilinearStaysWithinOneLevel) {
  // Highway's SCALAR target (natively with g++ < 12.3, whose EMU128 Highway disables) has
  // one-lane vectors only: the channels-last kernels, which hold a pixel's channels in four
  // lanes, leave it to the generic path.
  if (!gridsample::fast::TargetHasChannelsLast())
    GTEST_SKIP() << target() << " has no channels-last kernels";
  std::mt19937 rng(123);
  int64_t values = 0, differing = 0;
  const std::vector<std::vector<int64_t>> sizes = {{61, 67}, {257, 250}, {9, 4096}, {4096, 7}};
  for (const std::vector<int64_t>& hw : sizes) {
    for (int64_t c : {1, 2, 3, 4}) {
      Tensor x(DType::kUint8, {1, hw[0], hw[1], c});
      for (int64_t i = 0; i < x.size(); ++i)
        x.Set(i, std::uniform_int_distribution<int>(0, 1)(rng) * 255);
      for (int iter = 0; iter < 3; ++iter) {
        const Tensor theta = HostileTheta(rng, iter == 2 ? DType::kFloat64 : DType::kFloat32, 1);
        std::uniform_int_distribution<int64_t> out(1, 80);
        const int64_t ho = out(rng), wo = iter == 0 ? 600 : out(rng);
        for (bool align : kAligns) {
          const FastPathRun run = FastPathTester()
                                      .op(Op::kWarpAffine)
                                      .x(x)
                                      .theta(theta)
                                      .out({ho, wo})
                                      .mode(Mode::kLinear)
                                      .padding(iter == 1 ? Padding::kReflection : Padding::kBorder)
                                      .align(align)
                                      .tolerance(1.0)
                                      .Test();
          if (HasFatalFailure()) return;
          values += run.values;
          differing += run.differing;
        }
      }
    }
  }
  // Measured: 0.25% (x86, NEON) to 0.5% (WASM) of the values of these all-edge images.
  EXPECT_LT(static_cast<double>(differing), 0.01 * static_cast<double>(values))
      << target() << ": " << differing << " of " << values << " values differ";
  std::printf("%s: fixed-point bilinear: %lld of %lld values 1 level off the reference\n",
              target().c_str(), static_cast<long long>(differing), static_cast<long long>(values));
}

// Non-finite X values at the border: nearest reads no pixel for a tap that zeros padding
// drops (as the reference skips it), so an infinity there does not leak into outside samples.
// (Linear and cubic windows lie inside X with zero weights on dropped taps, and 0 * inf is
// NaN: README, "Accuracy".)
TEST_P(ChannelsLastFast, NonFiniteInputNextToTheBorderStaysOutOfNearest) {
  std::mt19937 rng(9);
  Tensor x = RandomTensor(rng, DType::kFloat32, {1, 5, 6, 4});
  x.Set(0, kInf);
  x.Set(x.size() - 1, -kInf);
  x.Set(4 * 6 * 2 + 1, kNaN);
  Tensor grid(DType::kFloat32, {1, 9, 11, 2});
  for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
  for (Mode m : {Mode::kNearest}) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        FastPathTester()
            .op(Op::kGridSampleChannelsLast)
            .x(x)
            .grid(grid)
            .mode(m)
            .padding(pad)
            .align(align)
            .Test();
        if (HasFatalFailure()) return;
      }
    }
  }
}

// --- the public API over every dtype and channel count ---------------------------------------

// Dtypes and channel counts without a fast path take the generic path: still the reference's
// result bit for bit. Grid dtypes other than float32 too.
TEST(ChannelsLastPublic, EveryDTypeAndChannelCountMatchesReference) {
  std::mt19937 rng(31);
  Tally tally;
  for (DType dtype : kAllDTypes) {
    for (int iter = 0; iter < 6; ++iter) {
      const Shape s = RandomShape(rng, 9);
      const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
      const DType grid_dtype = kGridDTypes[iter % 4];
      Tensor grid(grid_dtype, {s.n, s.ho, s.wo, 2});
      for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
      const Tensor theta = HostileTheta(rng, iter % 2 ? DType::kFloat64 : DType::kFloat32, s.n);
      TestEveryOption(
          Op::kGridSampleChannelsLast, dtype, [&](FastPathTester& t) { t.x(x).grid(grid); }, false,
          &tally);
      if (HasFatalFailure()) return;
      TestEveryOption(
          Op::kWarpAffine, dtype,
          [&](FastPathTester& t) {
            t.x(x).theta(theta).out({s.ho, s.wo});
          },
          false, &tally);
      if (HasFatalFailure()) return;
      const Tensor h = HostileHomography(rng, iter % 2 ? DType::kFloat32 : DType::kFloat64, s.n,
                                         s.h, s.w, s.ho, s.wo);
      TestEveryOption(
          Op::kWarpPerspective, dtype,
          [&](FastPathTester& t) {
            t.x(x).theta(h).out({s.ho, s.wo});
          },
          false, &tally);
      if (HasFatalFailure()) return;
      TestRemapEveryOption(rng, x, dtype, iter % 2 == 0, s.ho, s.wo, false, &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(tally.runs, 10 * 6 * 18 * 4);
}

}  // namespace
}  // namespace gridsample_test
