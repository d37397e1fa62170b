// Channels-last GridSample, WarpAffine and Remap on images of many channels (the vectors-of-
// channels blend, blends/wide_pixels-inl.h) and on narrow grids (points x 4, x 1: the grid's
// rows walked as one line) against the reference, on every target.
//
// Channel counts around every vector width (4, 8, 16 lanes) test the blend's overlapping last
// vector; size-1 axes, out-of-range, NaN, infinite and huge coordinates the planner's windows.
// What is promised is ChannelsLastTester's (channels_last_inputs.h): bit for bit, except folded
// border / reflection taps and uint8 bilinear.
#include <cstdint>
#include <random>
#include <vector>

#include "channels_last_inputs.h"
#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

class ChannelsLastWide : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(ChannelsLastWide);

constexpr int64_t kChannelCounts[] = {1, 3, 4, 5, 8, 31, 32, 33, 256};

// X sides (H, W): size-1 axes (the reference's only, for modes whose window does not fit),
// the smallest windows, and larger images.
const std::vector<std::vector<int64_t>> kSides = {{1, 1}, {1, 6}, {5, 1}, {2, 2},
                                                  {4, 4}, {7, 5}, {3, 11}};

// A grid of hostile coordinates, with every kind HostileCoordinate gives plus exact NaN,
// infinities and the largest floats in the first pixels (small grids may miss them).
Tensor WideGrid(std::mt19937& rng, int64_t n, int64_t ho, int64_t wo) {
  Tensor grid(DType::kFloat32, {n, ho, wo, 2});
  for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
  const float firsts[] = {kNaN, 0.25f, kInf, -kInf, 3e38f, -0.5f, -3e38f, 1e30f};
  for (int64_t i = 0; i < 8 && i < grid.size(); ++i) grid.Set(i, firsts[i]);
  return grid;
}

TEST_P(ChannelsLastWide, GridSampleEveryChannelCountMatchesReference) {
  Tally tally;
  std::mt19937 rng(4401);
  int64_t shape = 0;
  for (int64_t c : kChannelCounts) {
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (int iter = 0; iter < 3; ++iter, ++shape) {
        const std::vector<int64_t>& hw = kSides[shape % kSides.size()];
        const int64_t n = 1 + iter % 2, ho = 1 + shape % 5, wo = c > 32 ? 3 : 1 + shape % 9;
        const Tensor x = RandomTensor(rng, dtype, {n, hw[0], hw[1], c});
        const Tensor grid = WideGrid(rng, n, ho, wo);
        TestEveryOption(
            Op::kGridSampleChannelsLast, dtype, [&](FastPathTester& t) { t.x(x).grid(grid); }, true,
            &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 9 * 2 * 3 * 18);
}

// The narrow grids (points x 4, points x 1): many rows of one to four pixels walked as
// one line, crossing column tiles (512 pixels) and vectors mid-row.
TEST_P(ChannelsLastWide, NarrowGridsMatchReference) {
  std::mt19937 rng(4402);
  for (int64_t c : {4, 32, 33}) {
    for (int64_t wo : {1, 3, 4}) {
      const Tensor x = RandomTensor(rng, DType::kFloat32, {2, 9, 8, c});
      const Tensor grid = WideGrid(rng, 2, 700 / wo + 1, wo);
      for (Mode m : kModes) {
        for (Padding pad : kPaddings) {
          ChannelsLastTester(Op::kGridSampleChannelsLast, DType::kFloat32, m, pad)
              .x(x)
              .grid(grid)
              .align(wo == 3)
              .fast_path()
              .Test();
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// The other sources share the blend: WarpAffine (rows of its own) and Remap with many channels.
TEST_P(ChannelsLastWide, WarpsWithManyChannelsMatchReference) {
  Tally tally;
  std::mt19937 rng(4403);
  for (int64_t c : {5, 17, 40}) {
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {1, 6, 9, c});
      const Tensor theta = HostileTheta(rng, DType::kFloat32, 1);
      TestEveryOption(
          Op::kWarpAffine, dtype,
          [&](FastPathTester& t) {
            t.x(x).theta(theta).out({5, 13});
          },
          true, &tally);
      if (HasFatalFailure()) return;
      TestRemapEveryOption(rng, x, dtype, c % 2 == 0, 4, 7, true, &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(tally.runs, 3 * 2 * 2 * 18);
}

}  // namespace
}  // namespace gridsample_test
