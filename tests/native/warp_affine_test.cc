// Channels-last GridSample, WarpAffine, WarpPerspective and Remap against the reference on every
// target; validation.
//
// The oracle is X transposed to NCHW + reference::AffineGrid (or WarpPerspective's grid) +
// reference::GridSample (fast_path_tester.h); WarpPerspective's coordinate rule is tested
// against the exact projection in double here. The channels-last fast paths share NCHW's planner
// and its accuracy contract (README, "Accuracy"): bit for bit (the reference's taps, weights,
// summation order and rounding; the generic path calls the reference's own per-axis code), except
// where border or reflection padding adds the weights of taps on one pixel, and uint8 bilinear,
// whose fixed-point blend is within 1 level by construction
// (src/kernels/fast/fixed_point_u8-inl.h): there the tests allow 1 and also bound how often it is
// used.
#include "gridsample/warp_affine.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

using Op = FastPathTester::Op;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A tester for `op` with what the channels-last paths promise against the reference: bit for
// bit, except where border or reflection padding adds the weights of taps on one pixel (within
// 4e-6 of the largest |X|, 4 for RandomTensor's floats; integers may round 1 level apart) and
// uint8 bilinear (the fixed-point blend): at most 1 level apart.
FastPathTester ChannelsLastTester(Op op, DType dtype, Mode mode, Padding padding) {
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
void TestEveryOption(Op op, DType dtype, const std::function<void(FastPathTester&)>& inputs,
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
float HostileCoordinate(std::mt19937& rng) {
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
Tensor HostileTheta(std::mt19937& rng, DType dtype, int64_t n) {
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
Tensor HostileHomography(std::mt19937& rng, DType dtype, int64_t n, int64_t h, int64_t w,
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
float HostilePixel(std::mt19937& rng, int64_t size) {
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
std::pair<Tensor, std::optional<Tensor>> HostileMaps(std::mt19937& rng, bool planes, int64_t n,
                                                     int64_t h, int64_t w, int64_t ho, int64_t wo) {
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

struct Shape {
  int64_t n, h, w, c, ho, wo;
};

Shape RandomShape(std::mt19937& rng, int max_c) {
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  return {dim(1, 2), dim(1, 19), dim(1, 19), dim(1, max_c), dim(1, 19), dim(1, 19)};
}

// --- fast paths on every target --------------------------------------------------------------

class ChannelsLastFast : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(ChannelsLastFast);

// The fast channels-last paths take uint8 / float32 X with 1 to 4 channels (grid float32;
// theta float32 or float64) on every target but SCALAR, and equal the reference bit for bit.
TEST_P(ChannelsLastFast, GridSampleMatchesReference) {
  Tally tally;
  std::mt19937 rng(2024);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
      Tensor grid(DType::kFloat32, {s.n, s.ho, s.wo, 2});
      for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
      TestEveryOption(
          Op::kGridSampleChannelsLast, dtype, [&](FastPathTester& t) { t.x(x).grid(grid); }, true,
          &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(tally.runs, 40 * 2 * 18);
  std::printf(
      "channels-last GridSample: %lld runs as promised on %s (%lld uint8 bilinear runs "
      "with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, WarpAffineMatchesAffineGridPlusGridSample) {
  Tally tally;
  std::mt19937 rng(77);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (DType theta_dtype : {DType::kFloat32, DType::kFloat64}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        const Tensor theta = HostileTheta(rng, theta_dtype, s.n);
        TestEveryOption(
            Op::kWarpAffine, dtype,
            [&](FastPathTester& t) {
              t.x(x).theta(theta).out({s.ho, s.wo});
            },
            true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "WarpAffine: %lld runs as promised against AffineGrid + GridSample on %s (%lld "
      "uint8 bilinear runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, WarpPerspectiveMatchesGridSampleOnItsGrid) {
  Tally tally;
  std::mt19937 rng(1789);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (DType h_dtype : {DType::kFloat32, DType::kFloat64}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        const Tensor h = HostileHomography(rng, h_dtype, s.n, s.h, s.w, s.ho, s.wo);
        TestEveryOption(
            Op::kWarpPerspective, dtype,
            [&](FastPathTester& t) {
              t.x(x).theta(h).out({s.ho, s.wo});
            },
            true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "WarpPerspective: %lld runs as promised against GridSample on its grid on %s (%lld "
      "uint8 bilinear runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

TEST_P(ChannelsLastFast, RemapMatchesGridSampleOnItsGrid) {
  Tally tally;
  std::mt19937 rng(1808);
  for (int iter = 0; iter < 40; ++iter) {
    const Shape s = RandomShape(rng, 4);
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      for (bool planes : {false, true}) {
        const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
        // Named copies: C++17 lambdas cannot capture structured bindings (clang).
        const auto maps = HostileMaps(rng, planes, s.n, s.h, s.w, s.ho, s.wo);
        const Tensor& map_x = maps.first;
        const std::optional<Tensor>& map_y = maps.second;
        TestEveryOption(
            Op::kRemap, dtype, [&](FastPathTester& t) { t.x(x).maps(map_x, map_y); }, true, &tally);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_EQ(tally.runs, 40 * 4 * 18);
  std::printf(
      "Remap: %lld runs as promised against GridSample on its grid on %s (%lld uint8 bilinear "
      "runs with some value 1 level off)\n",
      static_cast<long long>(tally.runs), target().c_str(), static_cast<long long>(tally.off));
}

// Wide outputs cross the kernels' column tiles (512 pixels); three channels end rows exactly.
TEST_P(ChannelsLastFast, WideOutputsCrossColumnTiles) {
  std::mt19937 rng(5);
  for (int64_t c : {3, 4}) {
    for (DType dtype : {DType::kUint8, DType::kFloat32}) {
      const Tensor x = RandomTensor(rng, dtype, {1, 7, 23, c});
      const Tensor theta =
          MakeTensor(DType::kFloat32, {1, 2, 3}, {1.1, 0.2, -0.05, -0.15, 0.9, 0.1});
      const Tensor h = MakeTensor(DType::kFloat64, {1, 3, 3},
                                  {0.02, 0.001, 0.5, 0.0005, 0.9, 0.2, 0.0001, 0.0003, 1.0});
      for (Mode m : kModes) {
        ChannelsLastTester(Op::kWarpAffine, dtype, m, Padding::kBorder)
            .x(x)
            .theta(theta)
            .out({3, 1100})
            .align(false)
            .Test();
        if (HasFatalFailure()) return;
        ChannelsLastTester(Op::kWarpPerspective, dtype, m, Padding::kReflection)
            .x(x)
            .theta(h)
            .out({3, 1100})
            .align(false)
            .Test();
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The fixed-point uint8 bilinear blend against the reference where it is hardest: images of
// 0 and 255 only (every pixel an edge of full contrast), sides up to the fixed path's limit
// (4096, where positions are least precise), all channel counts, many affine maps. Every
// value within 1 level; and few differ at all (the blend is not merely within 1 but close:
// a coarser weight or position would show here first).
TEST_P(ChannelsLastFast, FixedPointBilinearStaysWithinOneLevel) {
  // Highway's SCALAR target (natively with g++ < 12.3, whose EMU128 Highway disables) has
  // one-lane vectors only: the channels-last kernels, which hold a pixel's channels in four
  // lanes, leave it to the generic path.
  if (!gridsample::fast::TargetHasChannelsLast())
    GTEST_SKIP() << target() << " has no channels-last kernels";
  std::mt19937 rng(123);
  int64_t values = 0, differing = 0;
  const std::vector<std::vector<int64_t>> sizes = {{61, 67}, {257, 250}, {9, 4096}, {4096, 7}};
  for (const std::vector<int64_t>& hw : sizes) {
    for (int64_t c : {1, 2, 3, 4}) {
      Tensor x(DType::kUint8, {1, hw[0], hw[1], c});
      for (int64_t i = 0; i < x.size(); ++i)
        x.Set(i, std::uniform_int_distribution<int>(0, 1)(rng) * 255);
      for (int iter = 0; iter < 3; ++iter) {
        const Tensor theta = HostileTheta(rng, iter == 2 ? DType::kFloat64 : DType::kFloat32, 1);
        std::uniform_int_distribution<int64_t> out(1, 80);
        const int64_t ho = out(rng), wo = iter == 0 ? 600 : out(rng);
        for (bool align : kAligns) {
          const FastPathRun run = FastPathTester()
                                      .op(Op::kWarpAffine)
                                      .x(x)
                                      .theta(theta)
                                      .out({ho, wo})
                                      .mode(Mode::kLinear)
                                      .padding(iter == 1 ? Padding::kReflection : Padding::kBorder)
                                      .align(align)
                                      .tolerance(1.0)
                                      .Test();
          if (HasFatalFailure()) return;
          values += run.values;
          differing += run.differing;
        }
      }
    }
  }
  // Measured: 0.25% (x86, NEON) to 0.5% (WASM) of the values of these all-edge images.
  EXPECT_LT(static_cast<double>(differing), 0.01 * static_cast<double>(values))
      << target() << ": " << differing << " of " << values << " values differ";
  std::printf("%s: fixed-point bilinear: %lld of %lld values 1 level off the reference\n",
              target().c_str(), static_cast<long long>(differing), static_cast<long long>(values));
}

// Non-finite X values at the border: nearest reads no pixel for a tap that zeros padding
// drops (as the reference skips it), so an infinity there does not leak into outside samples.
// (Linear and cubic windows lie inside X with zero weights on dropped taps, and 0 * inf is
// NaN: README, "Accuracy".)
TEST_P(ChannelsLastFast, NonFiniteInputNextToTheBorderStaysOutOfNearest) {
  std::mt19937 rng(9);
  Tensor x = RandomTensor(rng, DType::kFloat32, {1, 5, 6, 4});
  x.Set(0, kInf);
  x.Set(x.size() - 1, -kInf);
  x.Set(4 * 6 * 2 + 1, kNaN);
  Tensor grid(DType::kFloat32, {1, 9, 11, 2});
  for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
  for (Mode m : {Mode::kNearest}) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        FastPathTester()
            .op(Op::kGridSampleChannelsLast)
            .x(x)
            .grid(grid)
            .mode(m)
            .padding(pad)
            .align(align)
            .Test();
        if (HasFatalFailure()) return;
      }
    }
  }
}

// --- the public API over every dtype and channel count ---------------------------------------

// Dtypes and channel counts without a fast path take the generic path: still the reference's
// result bit for bit. Grid dtypes other than float32 too.
TEST(ChannelsLastPublic, EveryDTypeAndChannelCountMatchesReference) {
  std::mt19937 rng(31);
  Tally tally;
  for (DType dtype : kAllDTypes) {
    for (int iter = 0; iter < 6; ++iter) {
      const Shape s = RandomShape(rng, 9);
      const Tensor x = RandomTensor(rng, dtype, {s.n, s.h, s.w, s.c});
      const DType grid_dtype = kGridDTypes[iter % 4];
      Tensor grid(grid_dtype, {s.n, s.ho, s.wo, 2});
      for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, HostileCoordinate(rng));
      const Tensor theta = HostileTheta(rng, iter % 2 ? DType::kFloat64 : DType::kFloat32, s.n);
      TestEveryOption(
          Op::kGridSampleChannelsLast, dtype, [&](FastPathTester& t) { t.x(x).grid(grid); }, false,
          &tally);
      if (HasFatalFailure()) return;
      TestEveryOption(
          Op::kWarpAffine, dtype,
          [&](FastPathTester& t) {
            t.x(x).theta(theta).out({s.ho, s.wo});
          },
          false, &tally);
      if (HasFatalFailure()) return;
      const Tensor h = HostileHomography(rng, iter % 2 ? DType::kFloat32 : DType::kFloat64, s.n,
                                         s.h, s.w, s.ho, s.wo);
      TestEveryOption(
          Op::kWarpPerspective, dtype,
          [&](FastPathTester& t) {
            t.x(x).theta(h).out({s.ho, s.wo});
          },
          false, &tally);
      if (HasFatalFailure()) return;
      const auto maps = HostileMaps(rng, iter % 2 == 0, s.n, s.h, s.w, s.ho, s.wo);
      const Tensor& map_x = maps.first;
      const std::optional<Tensor>& map_y = maps.second;
      TestEveryOption(
          Op::kRemap, dtype, [&](FastPathTester& t) { t.x(x).maps(map_x, map_y); }, false, &tally);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_EQ(tally.runs, 10 * 6 * 18 * 4);
}

// The documented meaning on a case worked by hand: a 2x2 RGBA image, identity theta with
// align_corners = 1 reproduces it; a horizontal flip mirrors it; a half-pixel shift averages
// neighbours (rounded half to even in uint8).
TEST(ChannelsLastPublic, HandWorkedRgba) {
  const std::vector<double> px = {10, 20,  30,  255, 50,  60,  70,  255,
                                  90, 100, 110, 0,   130, 140, 151, 0};
  const Tensor x = MakeTensor(DType::kUint8, {1, 2, 2, 4}, px);
  auto warp = [&](std::vector<double> t, const GridSampleOptions& o) {
    const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, t);
    Tensor y(DType::kUint8, {1, 2, 2, 4});
    EXPECT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), o).ok());
    std::vector<double> v;
    for (int64_t i = 0; i < y.size(); ++i) v.push_back(y.Get(i));
    return v;
  };
  const GridSampleOptions align{Mode::kLinear, Padding::kZeros, true, {}};
  EXPECT_EQ(warp({1, 0, 0, 0, 1, 0}, align), px);
  EXPECT_EQ(
      warp({-1, 0, 0, 0, 1, 0}, align),
      (std::vector<double>{50, 60, 70, 255, 10, 20, 30, 255, 130, 140, 151, 0, 90, 100, 110, 0}));
  // x shifted by half a pixel (1 in normalised units at width 2 with align 1), border:
  // column 0 averages columns 0 and 1 ((110 + 151) / 2 = 130.5 rounds to even 130), column 1
  // stays column 1 (its right tap clamps onto it).
  const GridSampleOptions border{Mode::kLinear, Padding::kBorder, true, {}};
  EXPECT_EQ(
      warp({1, 0, 1, 0, 1, 0}, border),
      (std::vector<double>{30, 40, 50, 255, 50, 60, 70, 255, 110, 120, 130, 0, 130, 140, 151, 0}));
  // y shifted by half a pixel: row 0 averages rows 0 and 1 (127.5 rounds to 128, 110.5 to 110).
  EXPECT_EQ(
      warp({1, 0, 0, 0, 1, 1}, border),
      (std::vector<double>{50, 60, 70, 128, 90, 100, 110, 128, 90, 100, 110, 0, 130, 140, 151, 0}));
}

// --- WarpPerspective's coordinate rule against the exact projection -------------------------

// Input pixel of the normalised coordinate g on an axis of `size` (DESIGN.md section 2).
double PixelOf(double g, int64_t size, bool align) {
  return align ? (g + 1) / 2 * static_cast<double>(size - 1)
               : ((g + 1) * static_cast<double>(size) - 1) / 2;
}

// perspective_rule.h's float32 coordinates, taken back to pixels in double, are the exact
// projection (X / W, Y / W) of H * (j, i, 1) computed in double, within the rounding error of
// its float32 steps: a few units in the last place of the terms summed, divided by |w|.
TEST(WarpPerspectiveRule, CoordinatesFollowTheExactProjection) {
  std::mt19937 rng(404);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int64_t checked = 0, behind = 0;
  double worst = 0;  // largest error / bound
  for (int iter = 0; iter < 300; ++iter) {
    const int64_t w = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t h = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t wo = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const int64_t ho = std::uniform_int_distribution<int64_t>(1, 2000)(rng);
    const bool align = iter % 2 == 1;
    const double m[9] = {static_cast<double>(w) / wo * (1 + 0.3 * u(rng)),
                         0.3 * u(rng),
                         20 * u(rng),
                         0.3 * u(rng),
                         static_cast<double>(h) / ho * (1 + 0.3 * u(rng)),
                         20 * u(rng),
                         1.5 * u(rng) / wo,
                         1.5 * u(rng) / ho,
                         1 + 0.2 * u(rng)};
    const gridsample::PerspectiveMap map = gridsample::FoldPerspective(m, w, h, align);
    for (int k = 0; k < 40; ++k) {
      const int64_t i = std::uniform_int_distribution<int64_t>(0, ho - 1)(rng);
      const int64_t j = std::uniform_int_distribution<int64_t>(0, wo - 1)(rng);
      float gx, gy;
      gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &gx, &gy);
      const double p[3] = {static_cast<double>(j), static_cast<double>(i), 1.0};
      const double X = m[0] * p[0] + m[1] * p[1] + m[2];
      const double Y = m[3] * p[0] + m[4] * p[1] + m[5];
      const double W = m[6] * p[0] + m[7] * p[1] + m[8];
      if (!(W > 0)) {
        EXPECT_TRUE(std::isnan(gx) && std::isnan(gy))
            << "W = " << W << " at (" << j << ", " << i << ")";
        ++behind;
        continue;
      }
      // Each float32 step rounds by at most 2^-24 relative: the numerators' and w's terms
      // (three roundings each) and the quotient; in pixels, times the axis's scale.
      const double eps = std::ldexp(1.0, -24);
      const double aw =
          std::fabs(map.w[0] * p[0]) + std::fabs(map.w[1] * p[1]) + std::fabs(map.w[2]);
      const auto bound = [&](const double* r, double g, int64_t size) {
        const double a = std::fabs(r[0] * p[0]) + std::fabs(r[1] * p[1]) + std::fabs(r[2]);
        const double per_g = 4 * eps * (a + std::fabs(g) * aw) / W + 2 * eps * std::fabs(g);
        return per_g * (align ? (size - 1) / 2.0 : size / 2.0) + 1e-12;
      };
      const double ex = X / W, ey = Y / W;
      if (!(w == 1 && align)) {
        const double err = std::fabs(PixelOf(gx, w, align) - ex), b = bound(map.x, gx, w);
        ASSERT_LE(err, b) << "x at (" << j << ", " << i << ") of " << wo << "x" << ho << " onto "
                          << w << "x" << h;
        worst = std::max(worst, err / b);
      }
      if (!(h == 1 && align)) {
        const double err = std::fabs(PixelOf(gy, h, align) - ey), b = bound(map.y, gy, h);
        ASSERT_LE(err, b) << "y at (" << j << ", " << i << ") of " << wo << "x" << ho << " onto "
                          << w << "x" << h;
        worst = std::max(worst, err / b);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000);
  EXPECT_GT(behind, 10);
  std::printf(
      "perspective rule: %lld points within their bound (largest error %.2f of it), %lld behind "
      "the camera\n",
      static_cast<long long>(checked), worst, static_cast<long long>(behind));
}

// Points at infinity or of non-finite H sample nothing.
TEST(WarpPerspectiveRule, InfiniteAndNonFiniteWSampleNothing) {
  const double cases[][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 0},         // W = 0 everywhere
                             {1, 0, 0, 0, 1, 0, 0, 0, -1},        // behind the camera
                             {1, 0, 0, 0, 1, 0, 0, 0, HUGE_VAL},  // at infinity
                             {1, 0, 0, 0, 1, 0, 0, 0, 1e300},     // w beyond float
                             {1, 0, 0, 0, 1, 0, 0, std::nan(""), 1}};
  for (const double* m : cases) {
    const gridsample::PerspectiveMap map = gridsample::FoldPerspective(m, 8, 8, false);
    for (int64_t i : {0, 3}) {
      for (int64_t j : {0, 5}) {
        float gx, gy;
        gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &gx, &gy);
        EXPECT_TRUE(std::isnan(gx) && std::isnan(gy))
            << "w = " << m[8] << " got " << gx << ", " << gy;
      }
    }
  }
}

// Worked by hand: the identity reproduces X in every mode and padding; an integer translation
// shifts it (border padding repeats the edge); a map whose w grows along the row puts output
// pixels 16 and 48 exactly on input columns 8 and 12 (x = j / w, w = 1 + j / 16); H = -I puts every
// point behind the camera: all 0. Sides are powers of two (plus one with align_corners),
// where normalising a pixel position and back is exact (elsewhere it may move a point by a
// float32 rounding: a weight of about 1e-7 on a neighbour).
TEST(ChannelsLastPublic, WarpPerspectiveHandWorked) {
  std::mt19937 rng(8);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 8, 64, 3});
  const Tensor x_align = RandomTensor(rng, DType::kFloat32, {1, 9, 65, 3});
  auto warp = [&](std::vector<double> m, int64_t ho, int64_t wo, const GridSampleOptions& o) {
    const Tensor h = MakeTensor(DType::kFloat64, {1, 3, 3}, m);
    Tensor y(DType::kFloat32, {1, ho, wo, 3});
    const Tensor& from = o.align_corners ? x_align : x;
    const Status s = gridsample::WarpPerspective(from.View(), h.View(), y.MutableView(), o);
    EXPECT_TRUE(s.ok()) << s.message();
    return y;
  };
  const auto at = [](const Tensor& t, int64_t i, int64_t j, int64_t c) {
    return t.Get((i * t.shape()[2] + j) * 3 + c);
  };
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        const GridSampleOptions o{m, pad, align, {}};
        const Tensor& from = align ? x_align : x;
        const int64_t ho = from.shape()[1], wo = from.shape()[2];
        const Tensor same = warp({1, 0, 0, 0, 1, 0, 0, 0, 1}, ho, wo, o);
        for (int64_t k = 0; k < from.size(); ++k) {
          ASSERT_EQ(same.Get(k), from.Get(k)) << Describe(o);
        }
        const Tensor zero = warp({-1, 0, 0, 0, -1, 0, 0, 0, -1}, ho, wo, o);
        for (int64_t k = 0; k < zero.size(); ++k) ASSERT_EQ(zero.Get(k), 0.0) << Describe(o);
      }
    }
  }
  const Tensor shifted =
      warp({1, 0, 3, 0, 1, -2, 0, 0, 1}, 8, 64, {Mode::kLinear, Padding::kBorder, false, {}});
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      for (int64_t c = 0; c < 3; ++c) {
        const int64_t si = std::clamp<int64_t>(i - 2, 0, 7), sj = std::clamp<int64_t>(j + 3, 0, 63);
        ASSERT_EQ(at(shifted, i, j, c), at(x, si, sj, c)) << "(" << i << ", " << j << ")";
      }
    }
  }
  const Tensor bent =
      warp({1, 0, 0, 0, 1, 0, 1.0 / 16, 0, 1}, 6, 64, {Mode::kNearest, Padding::kZeros, false, {}});
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t c = 0; c < 3; ++c) {
      EXPECT_EQ(at(bent, i, 0, c), at(x, i, 0, c));
      // y = i / w too: rows i / 2 and i / 4, rounded half to even (nearest's rule).
      const auto row = [](double y) { return static_cast<int64_t>(std::nearbyint(y)); };
      EXPECT_EQ(at(bent, i, 16, c), at(x, row(i / 2.0), 8, c));
      EXPECT_EQ(at(bent, i, 48, c), at(x, row(i / 4.0), 12, c));
    }
  }
}

// --- Remap's coordinate rule against exact arithmetic ---------------------------------------

// NormalisePixel's float32 coordinate, taken back to pixels in double, is the position within
// the rounding of its two float32 steps (and the scale's own): a few units in the last place
// of |u| * scale + |offset|, in pixels. Huge finite positions stay finite; non-finite ones stay
// non-finite.
TEST(RemapRule, CoordinatesFollowThePositions) {
  std::mt19937 rng(55);
  double worst = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t size = std::uniform_int_distribution<int64_t>(1, 5000)(rng);
    const bool align = iter % 2 == 1;
    const gridsample::PixelAxis axis = gridsample::PixelAxisOf(size, align);
    for (int k = 0; k < 50; ++k) {
      const float u = HostilePixel(rng, size);
      const float g = gridsample::NormalisePixel(axis, u);
      if (!std::isfinite(u)) {
        EXPECT_FALSE(std::isfinite(g)) << u;
        continue;
      }
      ASSERT_TRUE(std::isfinite(g)) << "a finite position " << u << " on " << size << " pixels";
      if (std::fabs(u) > 1e7f || (align && size == 1)) continue;  // far outside: any far value
      const double eps = std::ldexp(1.0, -24);
      const double per_g =
          3 * eps * (std::fabs(static_cast<double>(u) * axis.scale) + std::fabs(axis.offset));
      const double bound = per_g * (align ? (size - 1) / 2.0 : size / 2.0) + 1e-12;
      const double err = std::fabs(PixelOf(g, size, align) - u);
      ASSERT_LE(err, bound) << "u = " << u << " on " << size << " pixels, align " << align;
      worst = std::max(worst, err / bound);
    }
  }
  std::printf("remap rule: largest error %.2f of its bound\n", worst);
}

// Worked by hand: an identity map reproduces X in every mode and padding (power-of-two sides,
// where normalising is exact); planes shifted by whole pixels with border padding repeat the
// edge; a huge finite position follows the padding rule (border: the edge pixel), an infinite
// one samples 0.
TEST(ChannelsLastPublic, RemapHandWorked) {
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 8, 16, 2});
  Tensor map(DType::kFloat32, {1, 8, 16, 2}), mx(DType::kFloat32, {1, 8, 16}),
      my(DType::kFloat32, {1, 8, 16});
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      map.Set(2 * (i * 16 + j), j);
      map.Set(2 * (i * 16 + j) + 1, i);
      mx.Set(i * 16 + j, j + 2);
      my.Set(i * 16 + j, i - 3);
    }
  }
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      const GridSampleOptions o{m, pad, false, {}};
      Tensor y(DType::kFloat32, {1, 8, 16, 2});
      ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), y.MutableView(), o).ok());
      for (int64_t k = 0; k < x.size(); ++k) ASSERT_EQ(y.Get(k), x.Get(k)) << Describe(o);
    }
  }
  Tensor y(DType::kFloat32, {1, 8, 16, 2});
  const GridSampleOptions border{Mode::kLinear, Padding::kBorder, false, {}};
  ASSERT_TRUE(gridsample::Remap(x.View(), mx.View(), my.View(), y.MutableView(), border).ok());
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 16; ++j) {
      for (int64_t c = 0; c < 2; ++c) {
        const int64_t si = std::clamp<int64_t>(i - 3, 0, 7), sj = std::clamp<int64_t>(j + 2, 0, 15);
        ASSERT_EQ(y.Get((i * 16 + j) * 2 + c), x.Get((si * 16 + sj) * 2 + c)) << i << ", " << j;
      }
    }
  }
  const Tensor far = MakeTensor(DType::kFloat32, {1, 1, 3, 2},
                                {std::numeric_limits<float>::max(), 0, -3e38, 7, kInf, 0});
  Tensor yf(DType::kFloat32, {1, 1, 3, 2});
  ASSERT_TRUE(gridsample::Remap(x.View(), far.View(), yf.MutableView(), border).ok());
  EXPECT_EQ(yf.Get(0), x.Get(15 * 2));            // row 0, last column
  EXPECT_EQ(yf.Get(2), x.Get((7 * 16 + 0) * 2));  // row 7, first column
  EXPECT_EQ(yf.Get(4), 0.0);                      // infinite: 0
}

TEST(ChannelsLastPublic, EmptyOutputsAndZeroChannelsSucceed) {
  std::mt19937 rng(3);
  const Tensor x = RandomTensor(rng, DType::kUint8, {1, 4, 4, 4});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  for (const std::vector<int64_t>& out : {std::vector<int64_t>{0, 5}, std::vector<int64_t>{5, 0}}) {
    Tensor y(DType::kUint8, {1, out[0], out[1], 4});
    EXPECT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView()).ok());
    Tensor grid(DType::kFloat32, {1, out[0], out[1], 2});
    EXPECT_TRUE(gridsample::GridSampleChannelsLast(x.View(), grid.View(), y.MutableView()).ok());
  }
  // Empty maps, their data pointer null (a fuzz finding: the interleaved map's y pointer was
  // made by adding to it).
  const int64_t empty_map_shape[4] = {1, 0, 5, 2};
  Tensor y_empty(DType::kUint8, {1, 0, 5, 4});
  EXPECT_TRUE(gridsample::Remap(x.View(), {nullptr, DType::kFloat32, empty_map_shape, 4},
                                y_empty.MutableView())
                  .ok());
  // C = 0: Y has no elements, nothing is read or written.
  const Tensor x0(DType::kFloat32, {1, 3, 3, 0});
  Tensor y0(DType::kFloat32, {1, 4, 4, 0});
  EXPECT_TRUE(gridsample::WarpAffine(x0.View(), theta.View(), y0.MutableView()).ok());
  // N = 0.
  const Tensor xn(DType::kFloat32, {0, 3, 3, 2});
  const Tensor tn(DType::kFloat32, {0, 2, 3});
  Tensor yn(DType::kFloat32, {0, 4, 4, 2});
  EXPECT_TRUE(gridsample::WarpAffine(xn.View(), tn.View(), yn.MutableView()).ok());
}

// --- validation --------------------------------------------------------------------------------

constexpr uint8_t kSentinel = 0xAB;

// The call fails with kInvalidArgument, the message starts with the operator, names `what`
// and contains each of `parts`; Y keeps its sentinel bytes.
void ExpectRejected(const Status& s, const Tensor& y, const std::string& op,
                    const std::string& what, const std::vector<std::string>& parts) {
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_EQ(static_cast<int>(s.code()), static_cast<int>(StatusCode::kInvalidArgument))
      << s.message();
  EXPECT_EQ(s.message().rfind(op + ": " + what, 0), 0u) << "message: " << s.message();
  for (const std::string& p : parts)
    EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' not in: " << s.message();
  EXPECT_TRUE(y.AllBytesAre(kSentinel)) << "output written on error: " << s.message();
}

TEST(ChannelsLastValidation, WarpAffineRejectsBadArguments) {
  const Tensor x(DType::kUint8, {1, 4, 5, 4});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  Tensor y(DType::kUint8, {1, 6, 7, 4});
  y.FillBytes(kSentinel);
  auto call = [&](const TensorView& xv, const TensorView& tv, const MutableTensorView& yv,
                  GridSampleOptions o = {}) { return gridsample::WarpAffine(xv, tv, yv, o); };

  const Tensor x3(DType::kUint8, {4, 5, 4});
  ExpectRejected(call(x3.View(), theta.View(), y.MutableView()), y, "WarpAffine", "X",
                 {"expected rank 4 (N, H, W, C)", "got rank 3", "[4, 5, 4]"});
  const Tensor theta_i(DType::kInt32, {1, 2, 3});
  ExpectRejected(call(x.View(), theta_i.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected dtype float32 or float64", "int32"});
  const Tensor theta_h(DType::kFloat16, {1, 2, 3});
  ExpectRejected(call(x.View(), theta_h.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"float32 or float64", "float16"});
  const Tensor theta34(DType::kFloat32, {1, 3, 4});
  ExpectRejected(call(x.View(), theta34.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected shape [1, 2, 3]", "[1, 4, 5, 4]", "got [1, 3, 4]"});
  const Tensor theta2(DType::kFloat32, {2, 2, 3});
  ExpectRejected(call(x.View(), theta2.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected shape [1, 2, 3]", "got [2, 2, 3]"});
  Tensor y3(DType::kUint8, {6, 7, 4});
  y3.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), y3.MutableView()), y3, "WarpAffine", "Y",
                 {"expected shape [1, Ho, Wo, 4] (rank 4)", "got rank 3"});
  Tensor yc(DType::kUint8, {1, 6, 7, 3});
  yc.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), yc.MutableView()), yc, "WarpAffine", "Y",
                 {"expected shape [1, 6, 7, 4]", "got [1, 6, 7, 3]"});
  Tensor yt(DType::kFloat32, {1, 6, 7, 4});
  yt.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), yt.MutableView()), yt, "WarpAffine", "Y",
                 {"expected dtype uint8", "got float32"});
  const int64_t neg_shape[4] = {1, -6, 7, 4};
  MutableTensorView yneg = y.MutableView();
  yneg.shape = neg_shape;
  ExpectRejected(call(x.View(), theta.View(), yneg), y, "WarpAffine", "Y",
                 {"dimension 1 must be >= 0", "-6"});
  const Tensor x_empty(DType::kUint8, {1, 0, 5, 4});
  ExpectRejected(call(x_empty.View(), theta.View(), y.MutableView()), y, "WarpAffine", "X",
                 {"a dimension is 0", "[1, 0, 5, 4]", "[1, 6, 7, 4]"});
  ExpectRejected(call(x.View(), theta.View(), y.MutableView(),
                      {static_cast<Mode>(7), Padding::kZeros, false, {}}),
                 y, "WarpAffine", "mode", {"got value 7"});
  ExpectRejected(call(x.View(), theta.View(), y.MutableView(),
                      {Mode::kLinear, static_cast<Padding>(-1), false, {}}),
                 y, "WarpAffine", "padding", {"got value -1"});
  // Y overlapping X.
  Tensor big(DType::kUint8, {1, 4, 5, 4});
  MutableTensorView alias{big.data(), DType::kUint8, y.shape().data(), 4};
  const TensorView big_x = big.View();
  const Status s = call(big_x, theta.View(), alias);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlaps an input"), std::string::npos) << s.message();
  // Still usable.
  EXPECT_TRUE(call(x.View(), theta.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, WarpPerspectiveRejectsBadArguments) {
  const Tensor x(DType::kFloat32, {2, 4, 5, 3});
  const Tensor h = MakeTensor(DType::kFloat64, {2, 3, 3},
                              {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  Tensor y(DType::kFloat32, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  auto call = [&](const TensorView& hv, const MutableTensorView& yv) {
    return gridsample::WarpPerspective(x.View(), hv, yv, {});
  };
  const Tensor h_i(DType::kInt32, {2, 3, 3});
  ExpectRejected(call(h_i.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected dtype float32 or float64", "int32"});
  const Tensor h23(DType::kFloat32, {2, 2, 3});
  ExpectRejected(call(h23.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected shape [2, 3, 3]", "[2, 4, 5, 3]", "got [2, 2, 3]"});
  const Tensor h1(DType::kFloat32, {1, 3, 3});
  ExpectRejected(call(h1.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected shape [2, 3, 3]", "got [1, 3, 3]"});
  TensorView hv = h.View();
  hv.data = nullptr;
  ExpectRejected(call(hv, y.MutableView()), y, "WarpPerspective", "H", {"data pointer is null"});
  Tensor y3(DType::kFloat32, {2, 6, 7});
  y3.FillBytes(kSentinel);
  ExpectRejected(call(h.View(), y3.MutableView()), y3, "WarpPerspective", "Y",
                 {"expected shape [2, Ho, Wo, 3] (rank 4)", "got rank 3"});
  EXPECT_TRUE(call(h.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, RemapRejectsBadArguments) {
  const Tensor x(DType::kUint8, {2, 4, 5, 3});
  const Tensor map(DType::kFloat32, {2, 6, 7, 2});
  const Tensor mx(DType::kFloat32, {2, 6, 7}), my(DType::kFloat32, {2, 6, 7});
  Tensor y(DType::kUint8, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  const auto one = [&](const TensorView& m, const MutableTensorView& yv) {
    return gridsample::Remap(x.View(), m, yv, {});
  };
  const auto two = [&](const TensorView& a, const TensorView& b, const MutableTensorView& yv) {
    return gridsample::Remap(x.View(), a, b, yv, {});
  };
  const Tensor map_d(DType::kFloat64, {2, 6, 7, 2});
  ExpectRejected(one(map_d.View(), y.MutableView()), y, "Remap", "map",
                 {"expected dtype float32 (pixel coordinates)", "float64"});
  const Tensor map3(DType::kFloat32, {2, 6, 7, 3});
  ExpectRejected(one(map3.View(), y.MutableView()), y, "Remap", "map",
                 {"expected shape [N, Ho, Wo, 2] with N = 2 (X's)", "got [2, 6, 7, 3]"});
  const Tensor map_n(DType::kFloat32, {1, 6, 7, 2});
  ExpectRejected(one(map_n.View(), y.MutableView()), y, "Remap", "map", {"got [1, 6, 7, 2]"});
  ExpectRejected(one(mx.View(), y.MutableView()), y, "Remap", "map",
                 {"expected shape [N, Ho, Wo, 2]", "got [2, 6, 7]"});
  const Tensor my_wrong(DType::kFloat32, {2, 7, 6});
  ExpectRejected(two(mx.View(), my_wrong.View(), y.MutableView()), y, "Remap", "map_y",
                 {"expected map_x's shape [2, 6, 7]", "got [2, 7, 6]"});
  const Tensor mx_i(DType::kInt32, {2, 6, 7});
  ExpectRejected(two(mx_i.View(), my.View(), y.MutableView()), y, "Remap", "map_x",
                 {"expected dtype float32", "int32"});
  ExpectRejected(two(map.View(), my.View(), y.MutableView()), y, "Remap", "map_x",
                 {"expected shape [N, Ho, Wo] with N = 2", "got [2, 6, 7, 2]"});
  Tensor y_wrong(DType::kUint8, {2, 7, 6, 3});
  y_wrong.FillBytes(kSentinel);
  ExpectRejected(one(map.View(), y_wrong.MutableView()), y_wrong, "Remap", "Y",
                 {"expected shape [2, 6, 7, 3]", "got [2, 7, 6, 3]"});
  // Y on top of map_y.
  Tensor big(DType::kFloat32, {2, 6, 7, 3});
  MutableTensorView alias{big.data(), DType::kUint8, y.shape().data(), 4};
  const int64_t plane_shape[3] = {2, 6, 7};
  const TensorView my_alias{big.data(), DType::kFloat32, plane_shape, 3};
  const Status s = two(mx.View(), my_alias, alias);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlaps an input"), std::string::npos) << s.message();
  EXPECT_TRUE(one(map.View(), y.MutableView()).ok());
  EXPECT_TRUE(two(mx.View(), my.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, GridSampleChannelsLastRejectsBadArguments) {
  const Tensor x(DType::kFloat32, {2, 4, 5, 3});
  const Tensor grid(DType::kFloat32, {2, 6, 7, 2});
  Tensor y(DType::kFloat32, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  auto call = [&](const TensorView& xv, const TensorView& gv, const MutableTensorView& yv) {
    return gridsample::GridSampleChannelsLast(xv, gv, yv, {});
  };
  const Tensor x5(DType::kFloat32, {2, 1, 4, 5, 3});
  ExpectRejected(call(x5.View(), grid.View(), y.MutableView()), y, "GridSampleChannelsLast", "X",
                 {"expected rank 4 (N, H, W, C)", "got rank 5"});
  const Tensor grid_i(DType::kUint8, {2, 6, 7, 2});
  ExpectRejected(call(x.View(), grid_i.View(), y.MutableView()), y, "GridSampleChannelsLast",
                 "grid", {"expected dtype float32, float64, float16 or bfloat16", "uint8"});
  const Tensor grid3(DType::kFloat32, {2, 6, 7, 3});
  ExpectRejected(call(x.View(), grid3.View(), y.MutableView()), y, "GridSampleChannelsLast", "grid",
                 {"expected shape [N, Ho, Wo, 2]", "[2, 6, 7, 3]"});
  const Tensor grid_n(DType::kFloat32, {1, 6, 7, 2});
  ExpectRejected(call(x.View(), grid_n.View(), y.MutableView()), y, "GridSampleChannelsLast",
                 "grid", {"expected batch size N = 2", "[1, 6, 7, 2]"});
  Tensor y_wrong(DType::kFloat32, {2, 7, 6, 3});
  y_wrong.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), grid.View(), y_wrong.MutableView()), y_wrong,
                 "GridSampleChannelsLast", "Y",
                 {"expected shape [2, 6, 7, 3]", "got [2, 7, 6, 3]"});
  const Tensor x_null_shape = x;
  TensorView xv = x_null_shape.View();
  xv.data = nullptr;
  ExpectRejected(call(xv, grid.View(), y.MutableView()), y, "GridSampleChannelsLast", "X",
                 {"data pointer is null"});
  EXPECT_TRUE(call(x.View(), grid.View(), y.MutableView()).ok());
}

}  // namespace
}  // namespace gridsample_test
