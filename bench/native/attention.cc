// Multi-scale deformable attention natively (issue 45's copy-floor target): the fused call against
// the same sampling as the split runs it (one GridSample per level on the value transposed to
// (M, D, H_l, W_l), grids 2 * loc - 1) and a memcpy of half the bytes the fused call reads and
// writes, at an RT-DETR decoder's and a Deformable-DETR encoder's sizes, 1 thread; JSON on stdout.
//
// Usage: gridsample_attention [--reps=15] [--target=T]   (T: a SIMD target, as
// gridsample::SetTarget) Each repetition times the three one after another (their order rotating),
// so that a busy moment of the machine falls on all three alike; medians and p90 per block. Before
// timing, the fused output is checked against the per-level samples weighted and summed in float64.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gridsample/gridsample.h"
#include "median.h"

namespace {

using Clock = std::chrono::steady_clock;
using gridsample::DType;
using gridsample::MutableTensorView;
using gridsample::Status;
using gridsample::TensorView;

constexpr int64_t kHeads = 8, kChannels = 32, kPoints = 4;

struct Block {
  const char* name;
  std::vector<int64_t> shapes;  // H_l, W_l per level
  int64_t queries;              // 0: one per value row (an encoder)
};

// Numerical Recipes' LCG, values in [0, 1).
struct Lcg {
  uint32_t s;
  float operator()() {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(s >> 8) / 16777216.0f;
  }
};

double P90(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() * 9) / 10 < v.size() ? (v.size() * 9) / 10 : v.size() - 1];
}

void Die(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "gridsample_attention: %s: %s\n", what, s.message().c_str());
  std::exit(1);
}

// One block's inputs and the three timed calls; returns a JSON object.
std::string Measure(const Block& b, int reps) {
  const int64_t L = static_cast<int64_t>(b.shapes.size()) / 2;
  std::vector<int64_t> starts(L);
  int64_t S = 0;
  for (int64_t l = 0; l < L; ++l) {
    starts[l] = S;
    S += b.shapes[2 * l] * b.shapes[2 * l + 1];
  }
  const int64_t Q = b.queries ? b.queries : S, M = kHeads, D = kChannels, P = kPoints;
  Lcg rnd{45};
  std::vector<float> value(S * M * D), loc(Q * M * L * P * 2), weights(Q * M * L * P), y(Q * M * D);
  for (float& v : value) v = 2 * rnd() - 1;
  for (float& v : loc) v = -0.05f + 1.1f * rnd();
  for (float& v : weights) v = rnd();

  // The split's inputs, made once: per level the value as (M, D, H, W) and the grid (M, Q, P, 2).
  std::vector<std::vector<float>> planes(L), grids(L), samples(L);
  for (int64_t l = 0; l < L; ++l) {
    const int64_t hw = b.shapes[2 * l] * b.shapes[2 * l + 1];
    planes[l].resize(M * D * hw);
    for (int64_t r = 0; r < hw; ++r)
      for (int64_t c = 0; c < M * D; ++c)
        planes[l][c * hw + r] = value[(starts[l] + r) * M * D + c];
    grids[l].resize(M * Q * P * 2);
    for (int64_t q = 0; q < Q; ++q)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t p = 0; p < P; ++p)
          for (int k = 0; k < 2; ++k)
            grids[l][((m * Q + q) * P + p) * 2 + k] =
                2 * loc[((((q * M + m) * L + l) * P + p) * 2) + k] - 1;
    samples[l].resize(M * D * Q * P);
  }

  const int64_t value_shape[4] = {1, S, M, D}, loc_shape[6] = {1, Q, M, L, P, 2},
                w_shape[5] = {1, Q, M, L, P}, y_shape[3] = {1, Q, M * D};
  gridsample::DeformableLevels levels;
  levels.spatial_shapes = b.shapes.data();
  levels.level_start_index = starts.data();
  levels.count = L;
  const auto fused = [&] {
    Die(gridsample::MultiScaleDeformableAttention(
            TensorView{value.data(), DType::kFloat32, value_shape, 4}, levels,
            TensorView{loc.data(), DType::kFloat32, loc_shape, 6},
            TensorView{weights.data(), DType::kFloat32, w_shape, 5},
            MutableTensorView{y.data(), DType::kFloat32, y_shape, 3}),
        "MultiScaleDeformableAttention");
  };
  const auto split = [&] {
    for (int64_t l = 0; l < L; ++l) {
      const int64_t x_shape[4] = {M, D, b.shapes[2 * l], b.shapes[2 * l + 1]},
                    g_shape[4] = {M, Q, P, 2}, s_shape[4] = {M, D, Q, P};
      Die(gridsample::GridSample(TensorView{planes[l].data(), DType::kFloat32, x_shape, 4},
                                 TensorView{grids[l].data(), DType::kFloat32, g_shape, 4},
                                 MutableTensorView{samples[l].data(), DType::kFloat32, s_shape, 4}),
          "GridSample");
    }
  };
  // The floor: (read + written) / 2 bytes copied, as the wasm rows' floor.
  const size_t floor_bytes = (value.size() + loc.size() + weights.size() + y.size()) * 2;
  std::vector<unsigned char> src(floor_bytes, 1), dst(floor_bytes, 0);
  volatile unsigned char sink = 0;
  const auto floor = [&] {
    std::memcpy(dst.data(), src.data(), floor_bytes);
    sink = dst[floor_bytes / 2];
  };

  // The check: the fused output against the split's samples, weighted and summed in float64.
  fused();
  split();
  double max_diff = 0;
  for (int64_t q = 0; q < Q; ++q)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t d = 0; d < D; ++d) {
        double sum = 0;
        for (int64_t l = 0; l < L; ++l)
          for (int64_t p = 0; p < P; ++p)
            sum += static_cast<double>(weights[((q * M + m) * L + l) * P + p]) *
                   samples[l][((m * D + d) * Q + q) * P + p];
        max_diff = std::max(max_diff, std::fabs(sum - y[(q * M + m) * D + d]));
      }

  const std::function<void()> calls[3] = {fused, split, floor};
  std::vector<double> times[3];
  for (int r = 0; r < reps; ++r) {
    for (int k = 0; k < 3; ++k) {
      const int i = (r + k) % 3;
      const auto start = Clock::now();
      calls[i]();
      times[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
  }
  char json[512];
  std::snprintf(json, sizeof json,
                "{\"block\": \"%s\", \"queries\": %lld, \"rows\": %lld, \"bytes\": %zu, "
                "\"max_abs_diff\": %.3g, \"fused\": [%.4f, %.4f], \"gridsample\": [%.4f, %.4f], "
                "\"floor\": [%.4f, %.4f]}",
                b.name, static_cast<long long>(Q), static_cast<long long>(S), floor_bytes * 2,
                max_diff, Median(times[0]), P90(times[0]), Median(times[1]), P90(times[1]),
                Median(times[2]), P90(times[2]));
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--reps=", 7) == 0 && std::atoi(argv[i] + 7) > 0) {
      reps = std::atoi(argv[i] + 7);
    } else if (std::strncmp(argv[i], "--target=", 9) == 0) {
      Die(gridsample::SetTarget(argv[i] + 9), "--target");
    } else {
      std::fprintf(stderr, "usage: %s [--reps=N] [--target=T]\n", argv[0]);
      return 2;
    }
  }
  // Levels of bench/js/deformable_attention.mjs's blocks (tests/js/lib/deformable_blocks.mjs).
  const Block blocks[] = {
      {"decoder", {80, 80, 40, 40, 20, 20}, 300},
      {"encoder_640", {80, 80, 40, 40, 20, 20, 10, 10}, 0},
      {"encoder_800x1333", {100, 167, 50, 84, 25, 42, 13, 21}, 0},
  };
  std::printf("{\"target\": \"%s\", \"reps\": %d, \"blocks\": [", gridsample::ActiveTarget(), reps);
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; ++i) {
    std::printf("%s\n  %s", i ? "," : "", Measure(blocks[i], reps).c_str());
    std::fflush(stdout);
  }
  std::printf("\n]}\n");
  return 0;
}
