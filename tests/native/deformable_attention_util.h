// Multi-scale deformable attention's test inputs, runner and oracle: the chain exporters write
// (per-level GridSample, stack, Mul, ReduceSum) computed with the library's GridSample reference.
#ifndef GRIDSAMPLE_TESTS_NATIVE_DEFORMABLE_ATTENTION_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_DEFORMABLE_ATTENTION_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {

using gridsample::DeformableLevels;
using gridsample::MultiScaleDeformableAttentionOptions;

// One call's inputs: value [N, S, M, D], levels (H, W) with their starts, sampling locations
// [N, Lq, M, L, P, 2] and attention weights [N, Lq, M, L, P], or, where `points` lists the levels'
// P_l, [N, Lq, M, sum(P_l), 2] and [N, Lq, M, sum(P_l)].
struct AttentionInputs {
  Tensor value;
  std::vector<int64_t> shapes;  // [L, 2]
  std::vector<int64_t> starts;  // [L]
  std::vector<int64_t> points;  // [L]: P_l, or empty (the rank-6 form)
  Tensor locations, weights;

  int64_t Levels() const { return static_cast<int64_t>(starts.size()); }
  DeformableLevels LevelsView() const {
    return {shapes.data(), starts.data(), Levels(), points.empty() ? nullptr : points.data()};
  }
  // P_l, in either form.
  int64_t LevelPoints(int64_t l) const {
    return points.empty() ? locations.shape()[4] : points[static_cast<size_t>(l)];
  }
  // The index of point k of level l of query q, head m, item n among the points (the locations'
  // pairs and the weights), in either form.
  int64_t Point(int64_t n, int64_t q, int64_t m, int64_t l, int64_t k) const {
    const std::vector<int64_t>& ls = locations.shape();
    int64_t first = 0, total = 0;
    for (int64_t i = 0; i < Levels(); ++i) {
      if (i < l) first += LevelPoints(i);
      total += LevelPoints(i);
    }
    return ((n * ls[1] + q) * ls[2] + m) * total + first + k;
  }
  std::vector<int64_t> OutputShape() const {
    const std::vector<int64_t>& v = value.shape();
    return {v[0], locations.shape()[1], v[2] * v[3]};
  }
  std::string Describe() const {
    std::ostringstream s;
    s << "value " << ToString(value.shape()) << " " << Name(value.dtype()) << ", levels";
    for (int64_t l = 0; l < Levels(); ++l) s << ' ' << shapes[2 * l] << 'x' << shapes[2 * l + 1];
    s << ", locations " << ToString(locations.shape()) << " " << Name(locations.dtype());
    if (!points.empty()) s << ", points_per_level " << ToString(points);
    return s.str();
  }
};

// The sizes of a random call.
struct AttentionShape {
  int64_t n, heads, channels, queries, points;
  std::vector<std::pair<int64_t, int64_t>> levels;  // (H, W)
};

// Random inputs of `shape`: values in [-4, 4]; locations multiples of 2^-10 in [-0.1, 1.1] (so
// that the chain's 2 * loc - 1 is exact and both sides sample the very same pixel positions),
// or any float32 in [0, 1] when `dyadic` is false; weights positive, summing to 1 per head and
// query as a softmax's do.
inline AttentionInputs RandomAttention(std::mt19937& rng, const AttentionShape& shape,
                                       DType dtype = DType::kFloat32, bool dyadic = true) {
  AttentionInputs in;
  int64_t s = 0;
  for (const auto& [h, w] : shape.levels) {
    in.shapes.push_back(h);
    in.shapes.push_back(w);
    in.starts.push_back(s);
    s += h * w;
  }
  const int64_t levels = in.Levels();
  in.value = RandomTensor(rng, dtype, {shape.n, s, shape.heads, shape.channels});
  in.locations = Tensor(dtype, {shape.n, shape.queries, shape.heads, levels, shape.points, 2});
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int64_t i = 0; i < in.locations.size(); ++i) {
    in.locations.Set(i, dyadic ? RandomDyadic(rng, -0.1, 1.1, 10) : unit(rng));
  }
  in.weights = Tensor(dtype, {shape.n, shape.queries, shape.heads, levels, shape.points});
  const int64_t group = levels * shape.points;
  for (int64_t i0 = 0; i0 < in.weights.size(); i0 += group) {
    std::vector<double> w(static_cast<size_t>(group));
    double sum = 0.0;
    for (double& v : w) sum += (v = std::exp(4.0 * unit(rng)));
    for (int64_t k = 0; k < group; ++k) in.weights.Set(i0 + k, w[static_cast<size_t>(k)] / sum);
  }
  return in;
}

// The same call with P_l points on level l (each at most the P of the rank-6 `*padded`): the
// listed form takes level l's first P_l points; in *padded the points past P_l get weight 0 at
// location (0.5, 0.5), so that it sums the very same terms and exact zeros, which change no sum.
inline AttentionInputs ListPoints(AttentionInputs* padded, const std::vector<int64_t>& points) {
  AttentionInputs in;
  in.value = padded->value;
  in.shapes = padded->shapes;
  in.starts = padded->starts;
  in.points = points;
  const std::vector<int64_t>& ls = padded->locations.shape();
  int64_t total = 0;
  for (int64_t p : points) total += p;
  in.locations = Tensor(padded->locations.dtype(), {ls[0], ls[1], ls[2], total, 2});
  in.weights = Tensor(padded->weights.dtype(), {ls[0], ls[1], ls[2], total});
  for (int64_t n = 0; n < ls[0]; ++n)
    for (int64_t q = 0; q < ls[1]; ++q)
      for (int64_t m = 0; m < ls[2]; ++m)
        for (int64_t l = 0; l < ls[3]; ++l)
          for (int64_t k = 0; k < ls[4]; ++k) {
            const int64_t from = padded->Point(n, q, m, l, k);
            if (k >= points[static_cast<size_t>(l)]) {
              padded->weights.Set(from, 0.0);
              padded->locations.Set(2 * from, 0.5);
              padded->locations.Set(2 * from + 1, 0.5);
              continue;
            }
            const int64_t to = in.Point(n, q, m, l, k);
            in.weights.Set(to, padded->weights.Get(from));
            for (int a = 0; a < 2; ++a)
              in.locations.Set(2 * to + a, padded->locations.Get(2 * from + a));
          }
  return in;
}

// Sprinkles edge locations (borders, outside, huge, infinite, NaN) and non-finite weights over
// random inputs.
inline void AddEdges(std::mt19937& rng, AttentionInputs* in) {
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

using AttentionFn = Status (*)(const TensorView&, const DeformableLevels&, const TensorView&,
                               const TensorView&, const MutableTensorView&,
                               const MultiScaleDeformableAttentionOptions&);

// Runs `fn` into a fresh y of the right shape and the value's dtype (filled with 0xA5 bytes).
inline Status RunAttention(AttentionFn fn, const AttentionInputs& in, Tensor* y,
                           const MultiScaleDeformableAttentionOptions& options = {}) {
  *y = Tensor(in.value.dtype(), in.OutputShape());
  y->FillBytes(0xA5);
  return fn(in.value.View(), in.LevelsView(), in.locations.View(), in.weights.View(),
            y->MutableView(), options);
}

// The chain of transformers' multi_scale_deformable_attention (PyTorch) as exporters write it, in
// float32 on the inputs' values: per level, the value transposed to (N * M, D, H, W) and sampled
// by GridSample (bilinear, zeros, align_corners 0) at the grid (N * M, Lq, P_l, 2) = 2 * loc - 1;
// stacked (or, with P_l listed, concatenated as D-FINE's deformable_attention_core_func_v2 does)
// over levels, multiplied by the weights and summed over (L, P) in that order; the sum stored in
// the value's dtype.
inline Tensor ChainOracle(const AttentionInputs& in) {
  const std::vector<int64_t>& vs = in.value.shape();
  const std::vector<int64_t>& ls = in.locations.shape();
  const int64_t n = vs[0], heads = vs[2], channels = vs[3];
  const int64_t queries = ls[1], levels = in.Levels();
  std::vector<Tensor> sampled;  // per level: (N * M, D, Lq, P_l)
  for (int64_t l = 0; l < levels; ++l) {
    const int64_t h = in.shapes[2 * l], w = in.shapes[2 * l + 1], points = in.LevelPoints(l);
    Tensor x(DType::kFloat32, {n * heads, channels, h, w});
    for (int64_t b = 0; b < n; ++b)
      for (int64_t m = 0; m < heads; ++m)
        for (int64_t c = 0; c < channels; ++c)
          for (int64_t p = 0; p < h * w; ++p)
            x.Set(((b * heads + m) * channels + c) * h * w + p,
                  in.value.Get({b, in.starts[l] + p, m, c}));
    Tensor grid(DType::kFloat32, {n * heads, queries, points, 2});
    for (int64_t b = 0; b < n; ++b)
      for (int64_t q = 0; q < queries; ++q)
        for (int64_t m = 0; m < heads; ++m)
          for (int64_t k = 0; k < points; ++k)
            for (int64_t a = 0; a < 2; ++a) {
              const float loc =
                  static_cast<float>(in.locations.Get(2 * in.Point(b, q, m, l, k) + a));
              grid.Set({b * heads + m, q, k, a}, 2.0f * loc - 1.0f);
            }
    Tensor y;
    const Status s =
        RunGridSample(&gridsample::reference::GridSample, x, grid, GridSampleOptions{}, &y);
    EXPECT_TRUE(s.ok()) << "the chain's GridSample at level " << l << ": " << s.message();
    sampled.push_back(std::move(y));
  }
  Tensor out(in.value.dtype(), in.OutputShape());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t q = 0; q < queries; ++q)
      for (int64_t m = 0; m < heads; ++m)
        for (int64_t c = 0; c < channels; ++c) {
          float acc = 0.0f;
          for (int64_t l = 0; l < levels; ++l)
            for (int64_t k = 0; k < in.LevelPoints(l); ++k) {
              const float sample = static_cast<float>(sampled[l].Get({b * heads + m, c, q, k}));
              const float weight = static_cast<float>(in.weights.Get(in.Point(b, q, m, l, k)));
              acc += sample * weight;
            }
          out.Set({b, q, m * channels + c}, acc);
        }
  return out;
}

// Every element of y equals `want` (NaN equals NaN), or lies within `tolerance` of it; the first
// few differences are reported with their place [n, q, m * D + d].
inline void ExpectAttentionNear(const Tensor& want, const Tensor& y, double tolerance,
                                const std::string& what) {
  ASSERT_EQ(want.shape(), y.shape()) << what;
  int reported = 0;
  for (int64_t i = 0; i < want.size() && reported < 5; ++i) {
    const double a = want.Get(i), b = y.Get(i);
    const bool same = (std::isnan(a) && std::isnan(b)) || a == b ||
                      (std::isfinite(a) && std::fabs(a - b) <= tolerance);
    if (!same) {
      ++reported;
      ADD_FAILURE() << what << ": at " << ToString(Unravel(i, want.shape())) << " expected " << a
                    << ", got " << b << " (tolerance " << tolerance << ")";
    }
  }
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_DEFORMABLE_ATTENTION_UTIL_H_
