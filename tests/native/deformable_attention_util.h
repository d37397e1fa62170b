// Multi-scale deformable attention's test inputs, runner and oracle: the chain exporters write
// (per-level GridSample, stack, Mul, ReduceSum) computed with the library's GridSample reference.
#ifndef GRIDSAMPLE_TESTS_NATIVE_DEFORMABLE_ATTENTION_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_DEFORMABLE_ATTENTION_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gridsample/multi_scale_deformable_attention.h"
#include "gtest/gtest.h"
#include "reference/reference.h"
#include "test_util.h"

namespace gridsample_test {

using gridsample::DeformableLevels;
using gridsample::MultiScaleDeformableAttentionOptions;

// One call's inputs: value [N, S, M, D], levels (H, W) with their starts, sampling locations
// [N, Lq, M, L, P, 2] and attention weights [N, Lq, M, L, P].
struct AttentionInputs {
  Tensor value;
  std::vector<int64_t> shapes;  // [L, 2]
  std::vector<int64_t> starts;  // [L]
  Tensor locations, weights;

  int64_t Levels() const { return static_cast<int64_t>(starts.size()); }
  DeformableLevels LevelsView() const { return {shapes.data(), starts.data(), Levels()}; }
  std::vector<int64_t> OutputShape() const {
    const std::vector<int64_t>& v = value.shape();
    return {v[0], locations.shape()[1], v[2] * v[3]};
  }
  std::string Describe() const {
    std::ostringstream s;
    s << "value " << ToString(value.shape()) << " " << Name(value.dtype()) << ", levels";
    for (int64_t l = 0; l < Levels(); ++l) s << ' ' << shapes[2 * l] << 'x' << shapes[2 * l + 1];
    s << ", locations " << ToString(locations.shape()) << " " << Name(locations.dtype());
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
// by GridSample (bilinear, zeros, align_corners 0) at the grid (N * M, Lq, P, 2) = 2 * loc - 1;
// stacked over levels, multiplied by the weights and summed over (L, P) in that order; the sum
// stored in the value's dtype.
inline Tensor ChainOracle(const AttentionInputs& in) {
  const std::vector<int64_t>& vs = in.value.shape();
  const std::vector<int64_t>& ls = in.locations.shape();
  const int64_t n = vs[0], heads = vs[2], channels = vs[3];
  const int64_t queries = ls[1], levels = ls[3], points = ls[4];
  std::vector<Tensor> sampled;  // per level: (N * M, D, Lq, P)
  for (int64_t l = 0; l < levels; ++l) {
    const int64_t h = in.shapes[2 * l], w = in.shapes[2 * l + 1];
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
              const float loc = static_cast<float>(in.locations.Get({b, q, m, l, k, a}));
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
            for (int64_t k = 0; k < points; ++k) {
              const float sample = static_cast<float>(sampled[l].Get({b * heads + m, c, q, k}));
              const float weight = static_cast<float>(in.weights.Get({b, q, m, l, k}));
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
