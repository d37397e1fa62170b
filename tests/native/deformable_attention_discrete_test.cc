// MultiScaleDeformableAttention's discrete sampling (RT-DETRv2's and D-FINE's method='discrete')
// against a float64 gather written in this file from the sources' formula: the pixels picked at
// .5 boundaries, below 0, past the level, on rectangular levels, and the weighted sums.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
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

// deformable_attention_core_func_v2(method='discrete'), RT-DETRv2
// (rtdetrv2_pytorch/src/zoo/rtdetr/utils.py, lines 117-124) and D-FINE (src/zoo/dfine/utils.py,
// lines 116-131), on a float32 model:
//   sampling_coord = (sampling_grid_l * torch.tensor([[w, h]]) + 0.5).to(torch.int64)
//   sampling_coord = sampling_coord.clamp(0, h - 1)
// the product and the sum each rounded to float32, .to(int64) truncating toward zero.
int64_t SourceIndex(double location, int64_t size, int64_t h) {
  const float product = static_cast<float>(location) * static_cast<float>(size);
  const float t = product + 0.5f;
  const double truncated = std::trunc(static_cast<double>(t));
  return static_cast<int64_t>(std::fmin(std::fmax(truncated, 0.0), static_cast<double>(h - 1)));
}

// The pixel (col, row) the sources read, with the library's two definitions where they read none:
// a non-finite location samples 0 (false), and a column past a level narrower than high (where
// PyTorch raises an IndexError) is clamped to W - 1.
bool SourcePixel(double x, double y, int64_t h, int64_t w, int64_t* col, int64_t* row) {
  if (!std::isfinite(x) || !std::isfinite(y)) return false;
  *col = std::min(SourceIndex(x, w, h), w - 1);
  *row = SourceIndex(y, h, h);
  return true;
}

// The gather and the weighted sum over every level and point, in float64; stored in the value's
// dtype.
Tensor DiscreteOracle(const AttentionInputs& in) {
  const std::vector<int64_t>& vs = in.value.shape();
  const int64_t queries = in.locations.shape()[1];
  Tensor out(in.value.dtype(), in.OutputShape());
  for (int64_t n = 0; n < vs[0]; ++n)
    for (int64_t q = 0; q < queries; ++q)
      for (int64_t m = 0; m < vs[2]; ++m)
        for (int64_t c = 0; c < vs[3]; ++c) {
          double acc = 0.0;
          for (int64_t l = 0; l < in.Levels(); ++l) {
            const int64_t h = in.shapes[2 * l], w = in.shapes[2 * l + 1];
            for (int64_t k = 0; k < in.LevelPoints(l); ++k) {
              const int64_t point = in.Point(n, q, m, l, k);
              int64_t col = 0, row = 0;
              double sample = 0.0;
              if (SourcePixel(in.locations.Get(2 * point), in.locations.Get(2 * point + 1), h, w,
                              &col, &row)) {
                sample = in.value.Get({n, in.starts[l] + row * w + col, m, c});
              }
              acc += in.weights.Get(point) * sample;
            }
          }
          out.Set({n, q, m * vs[3] + c}, acc);
        }
  return out;
}

struct Implementation {
  const char* name;
  AttentionFn fn;
};
const Implementation kImplementations[] = {
    {"public", &gridsample::MultiScaleDeformableAttention},
    {"reference", &gridsample::reference::MultiScaleDeformableAttention},
};

MultiScaleDeformableAttentionOptions Discrete() {
  MultiScaleDeformableAttentionOptions options;
  options.sampling = DeformableSampling::kDiscrete;
  return options;
}

// One level of h x w pixels whose value is the pixel's row of S plus 1 (0 means "nothing read"),
// sampled by one point of weight 1 per query at every pair of `coordinates`.
AttentionInputs PixelProbe(DType dtype, int64_t h, int64_t w, const std::vector<double>& coords) {
  AttentionInputs in;
  in.shapes = {h, w};
  in.starts = {0};
  in.value = Tensor(dtype, {1, h * w, 1, 1});
  for (int64_t s = 0; s < h * w; ++s) in.value.Set(s, static_cast<double>(s + 1));
  const int64_t queries = static_cast<int64_t>(coords.size() * coords.size());
  in.locations = Tensor(DType::kFloat32, {1, queries, 1, 1, 1, 2});
  in.weights = Tensor(DType::kFloat32, {1, queries, 1, 1, 1});
  for (int64_t q = 0; q < queries; ++q) {
    in.locations.Set(2 * q, coords[static_cast<size_t>(q) % coords.size()]);
    in.locations.Set(2 * q + 1, coords[static_cast<size_t>(q) / coords.size()]);
    in.weights.Set(q, 1.0);
  }
  return in;
}

// Every pair of edge coordinates on square, wide, tall and 1-pixel levels: the pixel read is the
// oracle's exactly (the values are small integers, exact in float16 too).
TEST(DeformableAttentionDiscrete, ReadsThePixelOfTheSourcesRule) {
  const double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> coords = {0.0,  -0.0, 0.5,  1.0,   1.05, 2.0,     -0.04, -0.05, -0.1,
                                -0.2, -1.0, 1e30, -1e30, 3e38, FLT_MAX, kInf,  -kInf, std::nan("")};
  for (int w : {1, 3, 4, 5, 7}) {  // (k + 0.5) / w and its float neighbours: the .5 boundaries
    for (int k = -1; k <= w; ++k) {
      const float half = static_cast<float>((k + 0.5) / w);
      coords.push_back(half);
      coords.push_back(std::nextafter(half, -1.0f));
      coords.push_back(std::nextafter(half, 2.0f));
      coords.push_back(static_cast<float>(static_cast<double>(k) / w));
    }
  }
  const std::pair<int64_t, int64_t> levels[] = {{5, 5}, {3, 7}, {7, 3}, {1, 1}, {1, 4}, {4, 1}};
  for (const Implementation& impl : kImplementations) {
    for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
      for (const auto& [h, w] : levels) {
        const AttentionInputs in = PixelProbe(dtype, h, w, coords);
        Tensor y;
        const Status s = RunAttention(impl.fn, in, &y, Discrete());
        ASSERT_TRUE(s.ok()) << s.message();
        ExpectAttentionNear(DiscreteOracle(in), y, 0.0,
                            std::string(impl.name) + " " + in.Describe());
      }
    }
  }
}

// A few pixels worked by hand (the oracle's rule written out): rounding half up, truncation
// toward zero below 0, the columns of a wide level clamped to H - 1, a tall level's to W - 1.
TEST(DeformableAttentionDiscrete, HandWorkedPixels) {
  struct Probe {
    int64_t h, w;
    double x, y;
    int64_t col, row;  // -1: nothing read
  };
  const Probe probes[] = {
      {4, 4, 0.125, 0.0, 1, 0},    // 0.5 + 0.5 = 1: half up
      {4, 4, 0.1249, 0.0, 0, 0},   // 0.4996 + 0.5 truncates to 0
      {4, 4, -0.125, 0.0, 0, 0},   // -0.5 + 0.5 = 0
      {4, 4, -0.375, 0.0, 0, 0},   // -1.5 + 0.5 = -1, clamped to 0
      {4, 4, 0.874, 0.874, 3, 3},  // 3.496 + 0.5 truncates to 3
      {4, 4, 0.875, 0.875, 3, 3},  // 4 clamped to 3
      {3, 7, 0.5, 0.5, 2, 2},      // col 4 of a 3 x 7 level clamped to H - 1 = 2 (the sources')
      {3, 7, 0.2, 0.3, 1, 1},      // col 1.9 -> 1, row 1.4 -> 1
      {7, 3, 0.9, 0.9, 2, 6},      // col 3.2 -> 3, past W - 1 = 2: clamped to 2 (ours)
      {7, 3, std::nan(""), 0.5, -1, -1},
      {7, 3, 0.5, -std::numeric_limits<double>::infinity(), -1, -1},
  };
  for (const Implementation& impl : kImplementations) {
    for (const Probe& p : probes) {
      const AttentionInputs in = PixelProbe(DType::kFloat32, p.h, p.w, {p.x});
      AttentionInputs probe = in;
      probe.locations.Set(1, p.y);
      Tensor y;
      const Status s = RunAttention(impl.fn, probe, &y, Discrete());
      ASSERT_TRUE(s.ok()) << s.message();
      const double want = p.col < 0 ? 0.0 : static_cast<double>(p.row * p.w + p.col + 1);
      EXPECT_EQ(want, y.Get(0)) << impl.name << " " << p.h << "x" << p.w << " at (" << p.x << ", "
                                << p.y << ")";
    }
  }
}

// Random calls (several heads, channels, levels and points, edges sprinkled in; listed points
// too): the weighted sums are the float64 oracle's within float32's (or float16's) rounding.
TEST(DeformableAttentionDiscrete, EqualsTheFloat64GatherOracle) {
  std::mt19937 rng(4504);
  const AttentionShape shapes[] = {
      {1, 8, 32, 6, 4, {{8, 10}, {4, 5}, {2, 3}, {1, 1}}},
      {2, 2, 3, 5, 3, {{5, 7}, {7, 5}}},
      {2, 3, 17, 4, 6, {{6, 6}, {3, 3}, {2, 2}}},
  };
  for (const Implementation& impl : kImplementations) {
    for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
      for (const AttentionShape& shape : shapes) {
        for (bool listed : {false, true}) {
          AttentionInputs in = RandomAttention(rng, shape, dtype, /*dyadic=*/false);
          AddEdges(rng, &in);
          if (listed) {
            std::vector<int64_t> points;
            for (size_t l = 0; l < shape.levels.size(); ++l) {
              points.push_back(1 + static_cast<int64_t>(l * 5 % shape.points));
            }
            in = ListPoints(&in, points);
          }
          Tensor y;
          const Status s = RunAttention(impl.fn, in, &y, Discrete());
          ASSERT_TRUE(s.ok()) << s.message();
          // |y| <= 4 (values in [-4, 4], weights summing to 1): float32 sums of a few dozen
          // terms round within 1e-5 of the exact sum, float16 stores within 4 * 2^-11.
          const double tolerance = dtype == DType::kFloat32 ? 1e-5 : 2.5e-3;
          ExpectAttentionNear(DiscreteOracle(in), y, tolerance,
                              std::string(impl.name) + " " + in.Describe());
        }
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
