// MultiScaleDeformableAttention (public call and reference) against the chain exporters write,
// computed with GridSample's reference: random shapes, edge locations, empty outputs, float16.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "api/reference_calls.h"
#include "deformable_attention_util.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gtest/gtest.h"

namespace gridsample_test {
namespace {

struct Implementation {
  const char* name;
  AttentionFn fn;
};
const Implementation kImplementations[] = {
    {"public", &gridsample::MultiScaleDeformableAttention},
    {"reference", &gridsample::reference::MultiScaleDeformableAttention},
};

// Shapes of the models (8 heads of 32 channels, 4 levels, 4 points) scaled down, and the corners:
// 1x1 levels, D = 1 and 3, one head, two batch items, one point.
const AttentionShape kShapes[] = {
    {1, 8, 32, 6, 4, {{8, 10}, {4, 5}, {2, 3}, {1, 1}}},
    {2, 1, 1, 7, 3, {{1, 1}, {3, 5}, {6, 4}}},
    {2, 2, 3, 5, 2, {{5, 7}}},
    {1, 3, 5, 4, 1, {{1, 1}, {1, 4}, {4, 1}}},
    {2, 8, 17, 3, 4, {{16, 16}, {8, 8}, {4, 4}, {2, 2}}},
};

// Locations on the pixel grid's exact places (multiples of 2^-10): the fused call and the chain
// sample the same positions, so they agree exactly (one order of sums, one rounding each).
TEST(DeformableAttention, EqualsTheGridSampleChainExactly) {
  std::mt19937 rng(45);
  for (const Implementation& impl : kImplementations) {
    for (const AttentionShape& shape : kShapes) {
      const AttentionInputs in = RandomAttention(rng, shape);
      Tensor y;
      const Status s = RunAttention(impl.fn, in, &y);
      ASSERT_TRUE(s.ok()) << impl.name << ": " << s.message();
      ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " " + in.Describe());
    }
  }
}

// Any float32 location in [0, 1]: the chain rounds 2 * loc - 1, the fused call does not (the
// pixel position differs by a float32 rounding, about 1e-7 * W pixels; values are in [-4, 4] and
// the weights sum to 1, so outputs differ by less than 8 * 16 * 1.2e-7).
TEST(DeformableAttention, IsWithinRoundingOfTheChainAnywhere) {
  std::mt19937 rng(46);
  for (const AttentionShape& shape : kShapes) {
    const AttentionInputs in = RandomAttention(rng, shape, DType::kFloat32, /*dyadic=*/false);
    Tensor y;
    const Status s = RunAttention(&gridsample::MultiScaleDeformableAttention, in, &y);
    ASSERT_TRUE(s.ok()) << s.message();
    ExpectAttentionNear(ChainOracle(in), y, 2e-5, in.Describe());
  }
}

// Locations on the levels' borders and pixel centres, outside, huge, infinite and NaN (the chain
// samples 0 there as GridSample does for a non-finite grid value), and weights that are NaN or
// infinite where the sample is 0: exactly as the chain, NaN for NaN.
TEST(DeformableAttention, EdgeLocationsAndWeightsAsTheChain) {
  const double kInf = std::numeric_limits<double>::infinity();
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const double edges[] = {0.0,    1.0,   0.5,  0.25,  0.75,  0.125,   1.0 / 16, -1.0 / 16,
                          -0.125, 1.125, -0.5, 1.5,   -1e30, 1e30,    3e38,     -3e38,
                          kInf,   -kInf, kNaN, 1e-30, -0.0,  1 - 1e-7};
  const int count = static_cast<int>(sizeof(edges) / sizeof(edges[0]));
  std::mt19937 rng(47);
  for (const Implementation& impl : kImplementations) {
    const AttentionShape shape{2, 8, 3, 12, 4, {{1, 1}, {2, 2}, {3, 5}, {8, 4}}};
    AttentionInputs in = RandomAttention(rng, shape);
    std::uniform_int_distribution<int> pick(0, count - 1);
    for (int64_t i = 0; i < in.locations.size(); ++i) {
      if (i % 3 != 2) in.locations.Set(i, edges[pick(rng)]);
    }
    Tensor y;
    Status s = RunAttention(impl.fn, in, &y);
    ASSERT_TRUE(s.ok()) << s.message();
    ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " edge locations");

    const double weights[] = {kNaN, kInf, -kInf, 1e30};
    for (int k = 0; k < 4; ++k) in.weights.Set(k * 37 % in.weights.size(), weights[k]);
    s = RunAttention(impl.fn, in, &y);
    ASSERT_TRUE(s.ok()) << s.message();
    ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " edge weights");
  }
}

// float16 and bfloat16 inputs and output: float32 sums, one rounding at the end (the chain's
// float32 sum of the same values, rounded once).
TEST(DeformableAttention, HalfDTypesSumInFloat32) {
  std::mt19937 rng(48);
  for (const Implementation& impl : kImplementations) {
    for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
      for (const AttentionShape& shape : kShapes) {
        const AttentionInputs in = RandomAttention(rng, shape, dtype);
        Tensor y;
        const Status s = RunAttention(impl.fn, in, &y);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(y.dtype(), dtype);
        ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " " + in.Describe());
      }
    }
  }
}

// Worked by hand: one 2x2 level [[1, 2], [3, 4]] (channel 0) and [[10, 20], [30, 40]]
// (channel 1); the centre (0.5, 0.5) is pixel (0.5, 0.5), the mean of the four; the top-left
// pixel centre (0.25, 0.25) is pixel (0, 0); (0, 0) is pixel (-0.5, -0.5): a quarter of pixel
// (0, 0), the other taps outside. Weights 2, 1, 4: channel 0 = 2 * 2.5 + 1 + 4 * 0.25 = 7.
TEST(DeformableAttention, HandWorkedExample) {
  AttentionInputs in;
  in.shapes = {2, 2};
  in.starts = {0};
  in.value = MakeTensor(DType::kFloat32, {1, 4, 1, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  in.locations = MakeTensor(DType::kFloat32, {1, 1, 1, 1, 3, 2}, {0.5, 0.5, 0.25, 0.25, 0, 0});
  in.weights = MakeTensor(DType::kFloat32, {1, 1, 1, 1, 3}, {2, 1, 4});
  for (const Implementation& impl : kImplementations) {
    Tensor y;
    const Status s = RunAttention(impl.fn, in, &y);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(y.Get(0), 7.0) << impl.name;
    EXPECT_EQ(y.Get(1), 70.0) << impl.name;
  }
}

// No query, no batch item, no head or no channel: an empty output, nothing written, no error.
// No point: every output is the empty sum, 0 (the chain's sum over an empty axis).
TEST(DeformableAttention, EmptyOutputsAndNoPoints) {
  std::mt19937 rng(49);
  const AttentionShape empties[] = {
      {1, 2, 4, 0, 3, {{3, 3}, {1, 2}}},
      {0, 2, 4, 5, 3, {{3, 3}, {1, 2}}},
      {1, 0, 4, 5, 3, {{3, 3}}},
      {1, 2, 0, 5, 3, {{3, 3}}},
  };
  for (const Implementation& impl : kImplementations) {
    for (const AttentionShape& shape : empties) {
      const AttentionInputs in = RandomAttention(rng, shape);
      Tensor y;
      const Status s = RunAttention(impl.fn, in, &y);
      EXPECT_TRUE(s.ok()) << impl.name << " " << in.Describe() << ": " << s.message();
      EXPECT_EQ(y.size(), 0) << in.Describe();
    }
    const AttentionInputs in = RandomAttention(rng, {2, 3, 5, 4, 0, {{3, 3}, {2, 2}}});
    Tensor y;
    const Status s = RunAttention(impl.fn, in, &y);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(y.size(), 2 * 4 * 15);
    ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " no points");
    for (int64_t i = 0; i < y.size(); ++i) ASSERT_EQ(y.Get(i), 0.0) << impl.name << " at " << i;
  }
}

}  // namespace
}  // namespace gridsample_test
