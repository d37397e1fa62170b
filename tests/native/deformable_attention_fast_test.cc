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

// Sprinkles edge locations (borders, outside, huge, infinite, NaN) and non-finite weights over
// random inputs.
void AddEdges(std::mt19937& rng, AttentionInputs* in) {
  const double kInf = std::numeric_limits<double>::infinity();
  const double edges[] = {0.0,  1.0,  0.5,   -1.0 / 16,    1.125, -0.5,    1e30,
                          3e38, kInf, -kInf, std::nan(""), -0.0,  1 - 1e-7};
  std::uniform_int_distribution<int> pick(0,
                                          static_cast<int>(sizeof(edges) / sizeof(edges[0])) - 1);
  for (int64_t i = 0; i < in->locations.size(); i += 5) in->locations.Set(i, edges[pick(rng)]);
  const double weights[] = {std::nan(""), kInf, -kInf};
  for (int64_t i = 0; i < 3 && i * 41 < in->weights.size(); ++i) {
    in->weights.Set(i * 41, weights[i]);
  }
}

// Whether the fast path takes these inputs (so that the comparison below compares something).
bool FastPathCovers(const AttentionInputs& in, Tensor* y) {
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
                                                                         {}});
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
