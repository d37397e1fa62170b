// MultiScaleDeformableAttention's fast path: byte for byte the reference's output on every SIMD
// target and for every threading.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/validation.h"
#include "deformable_attention_util.h"
#include "drivers/fast.h"
#include "gtest/gtest.h"
#include "reference/reference.h"
#include "threading_util.h"

namespace gridsample_test {
namespace {

// Channel counts around every vector width (1 to 16 lanes): whole blocks of 4 vectors, single
// vectors and channels left over; points per head below and above the planner's chunk (64) and
// not a multiple of any lane count; 1x1 levels.
const AttentionShape kFastShapes[] = {
    {1, 8, 32, 9, 4, {{8, 10}, {4, 5}, {2, 3}, {1, 1}}},
    {2, 1, 1, 7, 3, {{1, 1}, {3, 5}, {6, 4}}},
    {2, 2, 3, 5, 5, {{5, 7}}},
    {1, 3, 69, 4, 23, {{1, 1}, {9, 4}, {4, 1}}},
    {2, 8, 17, 3, 4, {{16, 16}, {8, 8}, {4, 4}, {2, 2}}},
    {1, 2, 8, 3, 0, {{3, 3}}},
};

// Whether the fast path takes these inputs (so that the comparison below compares something).
bool FastPathCovers(const AttentionInputs& in, Tensor* y,
                    gridsample::DeformableSampling sampling = {}) {
  gridsample::DeformableAttentionGeometry geometry;
  const Status s =
      gridsample::ValidateDeformableAttention(in.value.View(), in.LevelsView(), in.locations.View(),
                                              in.weights.View(), y->MutableView(), &geometry);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() &&
         gridsample::fast::Covers(gridsample::DeformableAttentionProblem{geometry,
                                                                         in.value.View(),
                                                                         in.locations.View(),
                                                                         in.weights.View(),
                                                                         y->MutableView(),
                                                                         {},
                                                                         sampling});
}

class AttentionFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(AttentionFast);

TEST_P(AttentionFast, EqualsTheReferenceBitForBit) {
  std::mt19937 rng(450);
  for (const AttentionShape& shape : kFastShapes) {
    for (bool edges : {false, true}) {
      for (bool dyadic : {true, false}) {
        AttentionInputs in = RandomAttention(rng, shape, DType::kFloat32, dyadic);
        if (edges) AddEdges(rng, &in);
        const std::string what = target() + " " + in.Describe() + (edges ? " with edges" : "");
        Tensor want, y;
        Status s = RunAttention(&gridsample::reference::MultiScaleDeformableAttention, in, &want);
        ASSERT_TRUE(s.ok()) << s.message();
        s = RunAttention(&gridsample::MultiScaleDeformableAttention, in, &y);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(FastPathCovers(in, &y)) << what;
        EXPECT_EQ(0, std::memcmp(want.data(), y.data(), want.bytes())) << what;
        if (std::memcmp(want.data(), y.data(), want.bytes()) != 0) {
          ExpectAttentionNear(want, y, 0.0, what);
        }
      }
    }
  }
}

// The discrete sampling and points listed per level (each alone and both), as above.
TEST_P(AttentionFast, DiscreteAndListedPointsEqualTheReferenceBitForBit) {
  std::mt19937 rng(452);
  const std::vector<int64_t> lists[] = {{3},       {23, 1, 7}, {1, 5, 2},   {1, 1, 1, 1},
                                        {3, 3, 2}, {},         {2, 2, 3, 4}};
  for (const auto sampling :
       {gridsample::DeformableSampling::kBilinear, gridsample::DeformableSampling::kDiscrete}) {
    for (const AttentionShape& shape : kFastShapes) {
      for (bool edges : {false, true}) {
        AttentionInputs in = RandomAttention(rng, shape, DType::kFloat32, /*dyadic=*/false);
        if (edges) AddEdges(rng, &in);
        for (const std::vector<int64_t>& points : lists) {  // the first that fits the shape
          bool fits = points.size() == shape.levels.size();
          for (int64_t p : points) fits = fits && p <= shape.points;
          if (fits) {
            in = ListPoints(&in, points);
            break;
          }
        }
        if (in.points.empty() && sampling == gridsample::DeformableSampling::kBilinear) continue;
        const std::string what =
            target() + " " + in.Describe() + (edges ? " with edges" : "") +
            (sampling == gridsample::DeformableSampling::kDiscrete ? " discrete" : "");
        MultiScaleDeformableAttentionOptions options;
        options.sampling = sampling;
        Tensor want, y;
        Status s =
            RunAttention(&gridsample::reference::MultiScaleDeformableAttention, in, &want, options);
        ASSERT_TRUE(s.ok()) << s.message();
        s = RunAttention(&gridsample::MultiScaleDeformableAttention, in, &y, options);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(FastPathCovers(in, &y, sampling)) << what;
        EXPECT_EQ(0, std::memcmp(want.data(), y.data(), want.bytes())) << what;
        if (std::memcmp(want.data(), y.data(), want.bytes()) != 0) {
          ExpectAttentionNear(want, y, 0.0, what);
        }
      }
    }
  }
}

class AttentionThreading : public Threading {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(AttentionThreading);

TEST_P(AttentionThreading, IsTheSameForEveryThreadCount) {
  std::mt19937 rng(451);
  const AttentionShape shapes[] = {
      {2, 8, 32, 150, 4, {{16, 20}, {8, 10}, {4, 5}, {2, 3}}},
      {1, 4, 8, 301, 3, {{12, 12}, {6, 6}, {1, 1}}},
  };
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (const AttentionShape& shape : shapes) {
      AttentionInputs in = RandomAttention(rng, shape, dtype);
      AddEdges(rng, &in);
      const Runner run = [&in](const Threads& threads, Tensor* y) {
        MultiScaleDeformableAttentionOptions options;
        options.threads = threads;
        return gridsample::MultiScaleDeformableAttention(in.value.View(), in.LevelsView(),
                                                         in.locations.View(), in.weights.View(),
                                                         y->MutableView(), options);
      };
      const bool split = ExpectSameForEveryThreading(run, Tensor(dtype, in.OutputShape()),
                                                     target() + " " + in.Describe());
      if (dtype == DType::kFloat32) {
        EXPECT_EQ(split, kSplits) << in.Describe();
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
