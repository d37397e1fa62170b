// Inputs of the channels-last suites: hostile theta, H, maps and coordinates, and a sweep of
// options.
//
// ChannelsLastTester states what the channels-last paths promise against the reference;
// TestEveryOption runs one problem under every mode, padding and align_corners.
#ifndef GRIDSAMPLE_TESTS_NATIVE_CHANNELS_LAST_INPUTS_H_
#define GRIDSAMPLE_TESTS_NATIVE_CHANNELS_LAST_INPUTS_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {

using Op = FastPathTester::Op;

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// A tester for `op` with what the channels-last paths promise against the reference: bit for
// bit, except where border or reflection padding adds the weights of taps on one pixel (within
// 4e-6 of the largest |X|, 4 for RandomTensor's floats; integers may round 1 level apart) and
// uint8 bilinear (the fixed-point blend): at most 1 level apart.
inline FastPathTester ChannelsLastTester(Op op, DType dtype, Mode mode, Padding padding) {
  FastPathTester t;
  t.op(op).mode(mode).padding(padding);
  const bool folded = mode != Mode::kNearest && padding != Padding::kZeros;
  if (dtype == DType::kUint8 && (mode == Mode::kLinear || folded)) {
    t.tolerance(1.0);
  } else if (folded) {
    t.tolerance(4e-6 * 4.0);
  }
  return t;
}

// Runs, how many had some value off the reference (within what is promised).
struct Tally {
  int64_t runs = 0, off = 0;
};

// Tests one problem (`inputs`: X, grid or theta and output size set on a ChannelsLastTester's
// operator) under every mode, padding and align_corners: with `fast_path`, on the fast path,
// which must run exactly when its Covers* query says so; else through the public entry point.
inline void TestEveryOption(Op op, DType dtype, const std::function<void(FastPathTester&)>& inputs,
                            bool fast_path, Tally* tally) {
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        FastPathTester t = ChannelsLastTester(op, dtype, m, pad);
        inputs(t);
        if (fast_path) t.fast_path();
        const FastPathRun run = t.align(align).Test();
        if (::testing::Test::HasFatalFailure()) return;
        ++tally->runs;
        if (run.differing) ++tally->off;
      }
    }
  }
}

// --- random problems ------------------------------------------------------------------------

// A grid value reaching interior points, exact borders, pixel-centre ties, several
// reflections, far outside, and non-finite values.
inline float HostileCoordinate(std::mt19937& rng) {
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  std::uniform_real_distribution<float> u(-1.2f, 1.2f);
  if (kind < 66) return u(rng);
  if (kind < 74) return kind % 2 ? -1.0f : 1.0f;
  if (kind < 82) return u(rng) * 6.0f;
  if (kind < 88)
    return std::ldexp(static_cast<float>(std::uniform_int_distribution<int>(-64, 64)(rng)), -5);
  if (kind < 91) return kNaN;
  if (kind < 93) return kind % 2 ? kInf : -kInf;
  if (kind < 96) return kind % 2 ? 1e30f : -1e30f;
  if (kind < 98) return kind % 2 ? std::numeric_limits<float>::max() : -3e9f;
  return std::numeric_limits<float>::denorm_min();
}

// theta (N, 2, 3) of `dtype`: rotations/scales/shears/translations, exact flips and quarter
// turns (grid values exactly on borders and pixel centres), dyadic entries (ties for nearest),
// large translations (many reflections), huge values (overflowing float32) and non-finite
// entries.
inline Tensor HostileTheta(std::mt19937& rng, DType dtype, int64_t n) {
  Tensor theta(dtype, {n, 2, 3});
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t b = 0; b < n; ++b) {
    double t[6];
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    if (kind < 3) {
      const double angle = 3.14159 * u(rng), sx = 1.0 + 0.7 * u(rng), sy = 1.0 + 0.7 * u(rng);
      t[0] = sx * std::cos(angle);
      t[1] = -sy * std::sin(angle) + 0.1 * u(rng);
      t[2] = 1.5 * u(rng);
      t[3] = sx * std::sin(angle);
      t[4] = sy * std::cos(angle);
      t[5] = 1.5 * u(rng);
    } else if (kind < 5) {
      const int quarter = std::uniform_int_distribution<int>(0, 3)(rng);
      const double c = quarter == 0 ? 1 : (quarter == 2 ? -1 : 0),
                   s = quarter == 1 ? 1 : (quarter == 3 ? -1 : 0);
      const double fx = u(rng) < 0 ? -1 : 1;
      t[0] = fx * c;
      t[1] = -s;
      t[2] = 0;
      t[3] = fx * s;
      t[4] = c;
      t[5] = 0;
    } else if (kind < 7) {
      for (double& v : t) v = RandomDyadic(rng, -2.0, 2.0, 3);
    } else if (kind < 8) {
      t[0] = 1 + 0.2 * u(rng);
      t[1] = 0.2 * u(rng);
      t[2] = 40 * u(rng);
      t[3] = 0.2 * u(rng);
      t[4] = 1 + 0.2 * u(rng);
      t[5] = 40 * u(rng);
    } else if (kind < 9) {
      for (double& v : t) v = u(rng);
      const double huge[] = {1e30, -1e30, 3.3e38, -3.3e38, 1e300};
      t[std::uniform_int_distribution<int>(0, 5)(rng)] =
          huge[std::uniform_int_distribution<int>(0, 4)(rng)];
    } else {
      for (double& v : t) v = u(rng);
      const double odd[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
      t[std::uniform_int_distribution<int>(0, 5)(rng)] =
          odd[std::uniform_int_distribution<int>(0, 2)(rng)];
    }
    for (int k = 0; k < 6; ++k) theta.Set(b * 6 + k, t[k]);
  }
  return theta;
}

// H (N, 3, 3) of `dtype`: projective maps of an output of ho x wo pixels onto X of h x w
// pixels (many with a horizon inside the output, so some points lie behind the camera),
// affine ones, exact scalings (ties for nearest), huge and non-finite entries.
inline Tensor HostileHomography(std::mt19937& rng, DType dtype, int64_t n, int64_t h, int64_t w,
                                int64_t ho, int64_t wo) {
  Tensor out(dtype, {n, 3, 3});
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t b = 0; b < n; ++b) {
    double m[9];
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    const double sx = static_cast<double>(w) / static_cast<double>(wo);
    const double sy = static_cast<double>(h) / static_cast<double>(ho);
    if (kind < 4) {  // around the scaling of the output onto X, a perspective row of its own
      const double p[9] = {sx * (1 + 0.3 * u(rng)),
                           0.3 * u(rng),
                           2 * u(rng),
                           0.3 * u(rng),
                           sy * (1 + 0.3 * u(rng)),
                           2 * u(rng),
                           0.15 * u(rng) / static_cast<double>(wo),
                           0.15 * u(rng) / static_cast<double>(ho),
                           1 + 0.1 * u(rng)};
      std::copy(p, p + 9, m);
    } else if (kind < 6) {  // a horizon across the output: w = 1 - j / j0 changes sign
      const double j0 = 1 + static_cast<double>(wo) * (0.2 + 0.8 * (u(rng) + 1) / 2);
      const double p[9] = {sx,     0.2 * u(rng), u(rng),        0.2 * u(rng), sy,
                           u(rng), -1.0 / j0,    0.05 * u(rng), 1.0};
      std::copy(p, p + 9, m);
    } else if (kind < 7) {  // dyadic entries, affine: exact positions, nearest ties
      for (int k = 0; k < 6; ++k) m[k] = RandomDyadic(rng, -2.0, 2.0, 2);
      m[6] = m[7] = 0;
      m[8] = 1;
    } else if (kind < 8) {  // a whole map times a factor: w constant, maybe negative
      const double f = u(rng) * 3;
      const double p[9] = {sx * f, 0, 0.5 * f, 0, sy * f, 0.5 * f, 0, 0, f};
      std::copy(p, p + 9, m);
    } else if (kind < 9) {
      for (double& v : m) v = u(rng);
      const double huge[] = {1e30, -1e30, 3.3e38, -3.3e38, 1e300};
      m[std::uniform_int_distribution<int>(0, 8)(rng)] =
          huge[std::uniform_int_distribution<int>(0, 4)(rng)];
    } else {
      for (double& v : m) v = u(rng);
      const double odd[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
      m[std::uniform_int_distribution<int>(0, 8)(rng)] =
          odd[std::uniform_int_distribution<int>(0, 2)(rng)];
    }
    for (int k = 0; k < 9; ++k) out.Set(b * 9 + k, m[k]);
  }
  return out;
}

// A pixel coordinate on an axis of `size` pixels for Remap's maps: inside and around the
// image, exact pixel centres and half-pixel ties, far outside, huge (beyond float's product
// range) and non-finite.
inline float HostilePixel(std::mt19937& rng, int64_t size) {
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  const float s = static_cast<float>(size);
  std::uniform_real_distribution<float> u(-3.0f, s + 2.0f);
  if (kind < 60) return u(rng);
  if (kind < 70) return std::floor(u(rng));
  if (kind < 78) return std::floor(u(rng)) + 0.5f;
  if (kind < 86) return u(rng) * 7.0f - 3.0f * s;
  if (kind < 89) return kNaN;
  if (kind < 92) return kind % 2 ? kInf : -kInf;
  if (kind < 95) return kind % 2 ? 1e30f : -1e30f;
  if (kind < 98) return kind % 2 ? std::numeric_limits<float>::max() : -3e38f;
  return kind % 2 ? 0x1p127f : -0x1.8p127f;
}

// Remap's maps for an output of ho x wo onto X of h x w: one interleaved (N, Ho, Wo, 2), or
// two planes (N, Ho, Wo).
inline std::pair<Tensor, std::optional<Tensor>> HostileMaps(std::mt19937& rng, bool planes,
                                                            int64_t n, int64_t h, int64_t w,
                                                            int64_t ho, int64_t wo) {
  if (!planes) {
    Tensor map(DType::kFloat32, {n, ho, wo, 2});
    for (int64_t p = 0; p < n * ho * wo; ++p) {
      map.Set(2 * p, HostilePixel(rng, w));
      map.Set(2 * p + 1, HostilePixel(rng, h));
    }
    return {map, std::nullopt};
  }
  Tensor mx(DType::kFloat32, {n, ho, wo}), my(DType::kFloat32, {n, ho, wo});
  for (int64_t p = 0; p < n * ho * wo; ++p) {
    mx.Set(p, HostilePixel(rng, w));
    my.Set(p, HostilePixel(rng, h));
  }
  return {mx, my};
}

// Remap of X (N, H, W, C) of `dtype` by HostileMaps to ho x wo under every option
// (TestEveryOption).
inline void TestRemapEveryOption(std::mt19937& rng, const Tensor& x, DType dtype, bool planes,
                                 int64_t ho, int64_t wo, bool fast_path, Tally* tally) {
  const std::vector<int64_t>& s = x.shape();
  // Named copies: C++17 lambdas cannot capture structured bindings (clang).
  const auto maps = HostileMaps(rng, planes, s[0], s[1], s[2], ho, wo);
  const Tensor& map_x = maps.first;
  const std::optional<Tensor>& map_y = maps.second;
  TestEveryOption(
      Op::kRemap, dtype, [&](FastPathTester& t) { t.x(x).maps(map_x, map_y); }, fast_path, tally);
}

struct Shape {
  int64_t n, h, w, c, ho, wo;
};

inline Shape RandomShape(std::mt19937& rng, int max_c) {
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  return {dim(1, 2), dim(1, 19), dim(1, 19), dim(1, max_c), dim(1, 19), dim(1, 19)};
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_CHANNELS_LAST_INPUTS_H_
