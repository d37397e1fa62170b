// MultiScaleDeformableAttention with points listed per level (D-FINE's num_points_list): the
// call equals the rank-6 call whose missing points weigh 0, and the chain D-FINE writes.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "deformable_attention_util.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gtest/gtest.h"

namespace gridsample_test {
namespace {

using gridsample::DeformableSampling;

// Shapes (their P the most points of a level) and the points listed per level: D-FINE's
// [3, 6, 3]; uneven counts around the fast path's chunk of 64 points and its vector widths;
// one level; one point.
// (GCC 12 warns of brace-initialised aggregates nesting these vectors: two arrays instead.)
const AttentionShape kShapes[] = {
    {1, 8, 32, 6, 6, {{8, 10}, {4, 5}, {2, 3}}},
    {2, 2, 3, 5, 40, {{5, 7}, {3, 2}, {1, 1}}},
    {1, 3, 17, 4, 9, {{4, 4}}},
    {2, 1, 1, 3, 1, {{1, 1}, {3, 5}}},
    {1, 2, 8, 3, 70, {{6, 6}, {3, 3}}},
};
const std::vector<int64_t> kPoints[] = {{3, 6, 3}, {40, 1, 29}, {9}, {1, 1}, {70, 5}};
constexpr int kListed = 5;

struct Implementation {
  const char* name;
  AttentionFn fn;
};
const Implementation kImplementations[] = {
    {"public", &gridsample::MultiScaleDeformableAttention},
    {"reference", &gridsample::reference::MultiScaleDeformableAttention},
};

// Both forms sum the same terms in the same order (the padded one adds exact zeros, which change
// no sum): the outputs are the same bytes, for each sampling, dtype and path.
TEST(DeformableAttentionPoints, EqualsTheCallWhoseMissingPointsWeighZero) {
  std::mt19937 rng(4501);
  for (const Implementation& impl : kImplementations) {
    for (DeformableSampling sampling :
         {DeformableSampling::kBilinear, DeformableSampling::kDiscrete}) {
      for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        for (int i = 0; i < kListed; ++i) {
          for (bool edges : {false, true}) {
            AttentionInputs padded = RandomAttention(rng, kShapes[i], dtype, /*dyadic=*/!edges);
            if (edges) AddEdges(rng, &padded);
            const AttentionInputs in = ListPoints(&padded, kPoints[i]);
            const std::string what =
                std::string(impl.name) + " " + in.Describe() +
                (sampling == DeformableSampling::kDiscrete ? " discrete" : "") +
                (edges ? " with edges" : "");
            MultiScaleDeformableAttentionOptions options;
            options.sampling = sampling;
            Tensor want, y;
            Status s = RunAttention(impl.fn, padded, &want, options);
            ASSERT_TRUE(s.ok()) << what << ": " << s.message();
            s = RunAttention(impl.fn, in, &y, options);
            ASSERT_TRUE(s.ok()) << what << ": " << s.message();
            EXPECT_EQ(0, std::memcmp(want.data(), y.data(), want.bytes())) << what;
            if (std::memcmp(want.data(), y.data(), want.bytes()) != 0) {
              ExpectAttentionNear(want, y, 0.0, what);
            }
          }
        }
      }
    }
  }
}

// Locations on the pixel grid's exact places: the fused call equals D-FINE's chain (per-level
// GridSample at its P_l points, concatenated, weighted, summed) exactly.
TEST(DeformableAttentionPoints, EqualsTheGridSampleChainExactly) {
  std::mt19937 rng(4502);
  for (const Implementation& impl : kImplementations) {
    for (int i = 0; i < kListed; ++i) {
      AttentionInputs padded = RandomAttention(rng, kShapes[i]);
      const AttentionInputs in = ListPoints(&padded, kPoints[i]);
      Tensor y;
      const Status s = RunAttention(impl.fn, in, &y);
      ASSERT_TRUE(s.ok()) << impl.name << ": " << s.message();
      ExpectAttentionNear(ChainOracle(in), y, 0.0, std::string(impl.name) + " " + in.Describe());
    }
  }
}

// An empty output (no query) is fine in the listed form; y is left as it is.
TEST(DeformableAttentionPoints, NoQueryWritesNothing) {
  std::mt19937 rng(4503);
  AttentionInputs padded = RandomAttention(rng, {1, 2, 4, 0, 3, {{3, 3}, {2, 2}}});
  const AttentionInputs in = ListPoints(&padded, {3, 2});
  Tensor y;
  const Status s = RunAttention(&gridsample::MultiScaleDeformableAttention, in, &y);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 0, 8}));
}

}  // namespace
}  // namespace gridsample_test
