// MultiScaleDeformableAttention's fast path: byte for byte the reference's output on every SIMD
// target and for every threading.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "api/validation.h"
#include "deformable_attention_util.h"
#include "drivers/fast.h"
#include "gtest/gtest.h"
#include "threading_util.h"

namespace gridsample_test {
namespace {

// Channel counts around every vector width (1 to 16 lanes): passes of 8, 4, 2 and 1 vectors
// (28: 4 + 2 + 1 in 4 lanes; 12: 2 + 1; 69: 8 + 8 + 1 and a channel, in wasm 4 + 4 + 4 + 4 + 1)
// and channels left over;
// points per head below and above the planner's chunk (64) and not a multiple of any lane
// count; 1x1 levels.
const AttentionShape kFastShapes[] = {
    {1, 8, 32, 9, 4, {{8, 10}, {4, 5}, {2, 3}, {1, 1}}},
    {1, 2, 28, 5, 23, {{4, 4}, {3, 3}, {2, 2}}},
    {1, 3, 12, 6, 5, {{5, 6}, {2, 2}}},
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

using gridsample::fast::AttentionGather;

// The fast path reading the value in place and gathering each head's rows into a plane first,
// forced for a scope (its own rule again after it).
struct ForcedGather {
  explicit ForcedGather(AttentionGather gather) {
    gridsample::fast::SetAttentionGatherForTest(gather);
  }
  ~ForcedGather() { gridsample::fast::SetAttentionGatherForTest(AttentionGather::kAuto); }
};
constexpr AttentionGather kGathers[] = {AttentionGather::kNever, AttentionGather::kAlways};

// The reference's output and the public call's, byte for byte, with the fast path taking it,
// reading the value in place and from gathered heads.
void ExpectFastEqualsReference(const AttentionInputs& in,
                               const MultiScaleDeformableAttentionOptions& options,
                               const std::string& what) {
  Tensor want;
  Status s =
      RunAttention(&gridsample::reference::MultiScaleDeformableAttention, in, &want, options);
  ASSERT_TRUE(s.ok()) << s.message();
  for (AttentionGather gather : kGathers) {
    const ForcedGather forced(gather);
    const std::string how = what + (gather == AttentionGather::kAlways ? " gathered" : "");
    Tensor y;
    s = RunAttention(&gridsample::MultiScaleDeformableAttention, in, &y, options);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(FastPathCovers(in, &y, options.sampling)) << how;
    EXPECT_EQ(0, std::memcmp(want.data(), y.data(), want.bytes())) << how;
    if (std::memcmp(want.data(), y.data(), want.bytes()) != 0) {
      ExpectAttentionNear(want, y, 0.0, how);
    }
  }
}

// `t`'s values in `dtype` (rounded where it holds fewer bits).
Tensor Retyped(const Tensor& t, DType dtype) {
  Tensor out(dtype, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) out.Set(i, t.Get(i));
  return out;
}

class AttentionFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(AttentionFast);

// float32 and float16 calls, and a float16 value with locations and weights of the other float
// dtypes (and the reverse).
TEST_P(AttentionFast, EqualsTheReferenceBitForBit) {
  std::mt19937 rng(450);
  const DType kMixed[][2] = {{DType::kFloat16, DType::kFloat32},
                             {DType::kFloat16, DType::kBFloat16},
                             {DType::kFloat32, DType::kFloat16}};
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (const AttentionShape& shape : kFastShapes) {
      for (bool edges : {false, true}) {
        for (bool dyadic : {true, false}) {
          AttentionInputs in = RandomAttention(rng, shape, dtype, dyadic);
          if (edges) AddEdges(rng, &in);
          ExpectFastEqualsReference(in, {},
                                    target() + " " + in.Describe() + (edges ? " with edges" : ""));
        }
      }
    }
  }
  for (const auto& [value, others] : kMixed) {
    for (const AttentionShape& shape : kFastShapes) {
      AttentionInputs in = RandomAttention(rng, shape, value, /*dyadic=*/false);
      AddEdges(rng, &in);
      in.locations = Retyped(in.locations, others);
      in.weights = Retyped(in.weights, others);
      ExpectFastEqualsReference(in, {}, target() + " " + in.Describe());
    }
  }
}

// The discrete sampling and points listed per level (each alone and both), as above.
TEST_P(AttentionFast, DiscreteAndListedPointsEqualTheReferenceBitForBit) {
  std::mt19937 rng(452);
  const std::vector<int64_t> lists[] = {{3},       {23, 1, 7}, {1, 5, 2},   {1, 1, 1, 1},
                                        {3, 3, 2}, {},         {2, 2, 3, 4}};
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (const auto sampling :
         {gridsample::DeformableSampling::kBilinear, gridsample::DeformableSampling::kDiscrete}) {
      for (const AttentionShape& shape : kFastShapes) {
        for (bool edges : {false, true}) {
          AttentionInputs in = RandomAttention(rng, shape, dtype, /*dyadic=*/false);
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
          MultiScaleDeformableAttentionOptions options;
          options.sampling = sampling;
          ExpectFastEqualsReference(
              in, options,
              target() + " " + in.Describe() + (edges ? " with edges" : "") +
                  (sampling == gridsample::DeformableSampling::kDiscrete ? " discrete" : ""));
        }
      }
    }
  }
}

// A bfloat16 value, and a float16 value of more channels than the fast path keeps sums of on the
// stack, run the reference.
TEST_P(AttentionFast, LeavesTheOtherValuesToTheReference) {
  std::mt19937 rng(453);
  const AttentionInputs bf16 = RandomAttention(rng, {1, 1, 8, 2, 2, {{3, 3}}}, DType::kBFloat16);
  const AttentionInputs wide = RandomAttention(rng, {1, 1, 513, 2, 2, {{3, 3}}}, DType::kFloat16);
  const AttentionInputs most = RandomAttention(rng, {1, 1, 512, 2, 2, {{3, 3}}}, DType::kFloat16);
  Tensor y(DType::kBFloat16, bf16.OutputShape());
  EXPECT_FALSE(FastPathCovers(bf16, &y));
  y = Tensor(DType::kFloat16, wide.OutputShape());
  EXPECT_FALSE(FastPathCovers(wide, &y));
  ExpectFastEqualsReference(most, {}, target() + " " + most.Describe());
}

class AttentionThreading : public Threading {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(AttentionThreading);

TEST_P(AttentionThreading, IsTheSameForEveryThreadCount) {
  std::mt19937 rng(451);
  const AttentionShape shapes[] = {
      {2, 8, 32, 150, 4, {{16, 20}, {8, 10}, {4, 5}, {2, 3}}},
      {1, 4, 8, 601, 3, {{12, 12}, {6, 6}, {1, 1}}},  // (601: a head of queries splits)
  };
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    for (const AttentionShape& shape : shapes) {
      AttentionInputs in = RandomAttention(rng, shape, dtype);
      AddEdges(rng, &in);
      for (AttentionGather gather : kGathers) {
        const ForcedGather forced(gather);
        const Runner run = [&in](const Threads& threads, Tensor* y) {
          MultiScaleDeformableAttentionOptions options;
          options.threads = threads;
          return gridsample::MultiScaleDeformableAttention(in.value.View(), in.LevelsView(),
                                                           in.locations.View(), in.weights.View(),
                                                           y->MutableView(), options);
        };
        const bool split = ExpectSameForEveryThreading(
            run, Tensor(dtype, in.OutputShape()),
            target() + " " + in.Describe() +
                (gather == AttentionGather::kAlways ? " gathered" : ""));
        EXPECT_EQ(split, kSplits) << in.Describe();
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
