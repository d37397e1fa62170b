// The fast paths' planner alone (src/kernels/planner/), on every compiled target,
// against the reference's per-axis windows (reference::ComputeWindow: its taps folded), for
// normalised coordinates and for pixel positions: the same window start inside the axis and the
// same weight for each of its pixels, bit for bit (sign included).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "drivers/fast.h"
#include "gtest/gtest.h"
#include "planner/limits.h"
#include "probes/probes.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// Finite coordinates that reach the interior, the exact borders, pixel centres and ties,
// several reflections and far outside (the planner's input is finite by contract).
float PlanCoordinate(std::mt19937& rng, gridsample::CoordinateSpace space, int32_t size) {
  if (space == gridsample::CoordinateSpace::kPixels) {  // the same kinds, in pixels
    const float g = PlanCoordinate(rng, gridsample::CoordinateSpace::kNormalised, size);
    return std::fabs(g) > 1e6f ? g : (g + 1.0f) * static_cast<float>(size) * 0.5f - 0.5f;
  }
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  std::uniform_real_distribution<float> u(-1.3f, 1.3f);
  if (kind < 60) return u(rng);
  if (kind < 68) return kind % 2 ? -1.0f : 1.0f;
  if (kind < 80) return u(rng) * 6.0f;
  if (kind < 90) {
    return std::ldexp(static_cast<float>(std::uniform_int_distribution<int>(-64, 64)(rng)), -5);
  }
  if (kind < 95) return kind % 2 ? 1e30f : -3e9f;
  if (kind < 98) return kind % 2 ? std::numeric_limits<float>::max() : -1e7f;
  return std::numeric_limits<float>::denorm_min();
}

class PlanTest : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(PlanTest);

TEST_P(PlanTest, WindowsEqualTheReferenceWindows) {
  std::mt19937 rng(31);
  int64_t checked = 0;
  using gridsample::CoordinateSpace;
  for (CoordinateSpace space : {CoordinateSpace::kNormalised, CoordinateSpace::kPixels}) {
    for (Mode m : kModes) {
      const int window = gridsample::TapsPerAxis(m);
      for (Padding pad : kPaddings) {
        for (bool align : kAligns) {
          for (int32_t size : {window, window + 1, 5, 17, 1000}) {
            const GridSampleOptions o{m, pad, align, {}};
            constexpr int kCount = 67;  // vector tails on every target
            std::vector<float> g(kCount);
            for (float& v : g) v = PlanCoordinate(rng, space, size);
            std::vector<int32_t> start(kCount, -7);
            std::vector<float> weight(kCount * 4, -7.0f);
            gridsample::fast::ProbePlanAxis(m, pad, space, size, align, g.data(), kCount,
                                            start.data(), weight.data());
            for (int p = 0; p < kCount; ++p) {
              const std::string what =
                  target() + ' ' + Describe(o) + " size " + std::to_string(size) +
                  (space == CoordinateSpace::kPixels ? " pixel " : " g ") + std::to_string(g[p]);
              ASSERT_GE(start[p], 0) << what;
              ASSERT_LE(start[p] + window, size) << what;
              // The reference's window: the same start and the same slot weights, bit for bit.
              gridsample::reference::AxisWindow<float> want;
              gridsample::reference::ComputeWindow(space, g[p], size, o, &want);
              ASSERT_EQ(want.count, window) << what;
              ASSERT_EQ(start[p], want.index[0]) << what;
              for (int j = 0; j < window; ++j) {
                ASSERT_EQ(want.index[j], start[p] + j) << what << ": slot " << j;
                ASSERT_EQ(std::signbit(weight[p * 4 + j]), std::signbit(want.weight[j]))
                    << what << ": slot " << j << " (pixel " << start[p] + j << ")";
                ASSERT_EQ(weight[p * 4 + j], want.weight[j])
                    << what << ": slot " << j << " (pixel " << start[p] + j << ")";
                ++checked;
              }
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
