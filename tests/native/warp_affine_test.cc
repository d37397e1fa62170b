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
// (src/kernels/blends/fixed_point_u8-inl.h): there the tests allow 1 and also bound how often it is
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
#include "shape_query.h"
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

TEST_P(ChannelsLastFast, RemapMatchesReference) {
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
      "Remap: %lld runs as promised against the reference on %s (%lld uint8 bilinear "
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

// perspective_rule.h's float32 positions are the exact projection (X / W, Y / W) of
// H * (j, i, 1) computed in double, within the rounding error of its float32 steps: a few units
// in the last place of the terms summed, divided by |W|; whatever H's scale (H and 2^k H, k up
// to +-900, give the same positions).
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
    const double m[9] = {static_cast<double>(w) / wo * (1 + 0.3 * u(rng)),
                         0.3 * u(rng),
                         20 * u(rng),
                         0.3 * u(rng),
                         static_cast<double>(h) / ho * (1 + 0.3 * u(rng)),
                         20 * u(rng),
                         1.5 * u(rng) / wo,
                         1.5 * u(rng) / ho,
                         1 + 0.2 * u(rng)};
    const int k = std::uniform_int_distribution<int>(-900, 900)(rng);
    double scaled[9];
    for (int e = 0; e < 9; ++e) scaled[e] = std::ldexp(m[e], k);
    const gridsample::PerspectiveMap map = gridsample::PerspectiveMapOf(m);
    const gridsample::PerspectiveMap map_scaled = gridsample::PerspectiveMapOf(scaled);
    for (int q = 0; q < 40; ++q) {
      const int64_t i = std::uniform_int_distribution<int64_t>(0, ho - 1)(rng);
      const int64_t j = std::uniform_int_distribution<int64_t>(0, wo - 1)(rng);
      float x, y, xs, ys;
      gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &x, &y);
      gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map_scaled, i), j, &xs,
                                         &ys);
      const std::string where = "(" + std::to_string(j) + ", " + std::to_string(i) + ") of " +
                                std::to_string(wo) + "x" + std::to_string(ho);
      const double p[3] = {static_cast<double>(j), static_cast<double>(i), 1.0};
      const double X = m[0] * p[0] + m[1] * p[1] + m[2];
      const double Y = m[3] * p[0] + m[4] * p[1] + m[5];
      const double W = m[6] * p[0] + m[7] * p[1] + m[8];
      if (!(W > 0)) {
        EXPECT_TRUE(std::isnan(x) && std::isnan(y)) << "W = " << W << " at " << where;
        EXPECT_TRUE(std::isnan(xs) && std::isnan(ys)) << "W = " << W << " at " << where;
        ++behind;
        continue;
      }
      ASSERT_EQ(x, xs) << "x at " << where << ", H times 2^" << k;
      ASSERT_EQ(y, ys) << "y at " << where << ", H times 2^" << k;
      // Each float32 step rounds by at most 2^-24 relative: the numerators' and w's terms
      // (three roundings each) and the quotient.
      const double eps = std::ldexp(1.0, -24);
      const auto sum = [&](const double* r) {
        return std::fabs(r[0] * p[0]) + std::fabs(r[1] * p[1]) + std::fabs(r[2]);
      };
      const double scale = std::ldexp(1.0, -std::ilogb(map.w[2] / m[8]));  // map = m / scale
      const auto bound = [&](const double* r, double v) {
        return (4 * eps * (sum(r) + std::fabs(v) * sum(map.w)) * scale / W +
                2 * eps * std::fabs(v)) +
               1e-12;
      };
      const double ex = X / W, ey = Y / W;
      const double bx = bound(map.x, x), by = bound(map.y, y);
      ASSERT_LE(std::fabs(x - ex), bx) << "x at " << where << " onto " << w << "x" << h;
      ASSERT_LE(std::fabs(y - ey), by) << "y at " << where << " onto " << w << "x" << h;
      worst = std::max({worst, std::fabs(x - ex) / bx, std::fabs(y - ey) / by});
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

// Points at infinity or of non-finite H sample nothing; a huge but finite w is a point near
// the origin (H's scale does not matter).
TEST(WarpPerspectiveRule, InfiniteAndNonFiniteWSampleNothing) {
  const double cases[][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 0},         // W = 0 everywhere
                             {1, 0, 0, 0, 1, 0, 0, 0, -1},        // behind the camera
                             {1, 0, 0, 0, 1, 0, 0, 0, HUGE_VAL},  // at infinity
                             {1, 0, 0, 0, 1, 0, 0, std::nan(""), 1}};
  for (const double* m : cases) {
    const gridsample::PerspectiveMap map = gridsample::PerspectiveMapOf(m);
    for (int64_t i : {0, 3}) {
      for (int64_t j : {1, 5}) {
        float x, y;
        gridsample::PerspectiveCoordinates(gridsample::PerspectiveRowTerms(map, i), j, &x, &y);
        EXPECT_TRUE(std::isnan(x) && std::isnan(y))
            << "H[6..8] = " << m[6] << ", " << m[7] << ", " << m[8] << " got " << x << ", " << y;
      }
    }
  }
  const double near_origin[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1e300};
  float x, y;
  gridsample::PerspectiveCoordinates(
      gridsample::PerspectiveRowTerms(gridsample::PerspectiveMapOf(near_origin), 3), 5, &x, &y);
  EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(y, 0.0f);
}

// Finite positions beyond float32's range stay finite (the terms and the quotient saturate), so
// they follow the padding rule: border padding repeats the corner they lie beyond.
TEST(WarpPerspectiveRule, HugeFinitePositionsFollowThePadding) {
  const double h[9] = {1, 0, 1e300, 0, 1, -1e300, 0, 0, 1};
  float x, y;
  gridsample::PerspectiveCoordinates(
      gridsample::PerspectiveRowTerms(gridsample::PerspectiveMapOf(h), 2), 3, &x, &y);
  EXPECT_TRUE(std::isfinite(x) && x > 1e30f) << x;
  EXPECT_TRUE(std::isfinite(y) && y < -1e30f) << y;
  std::mt19937 rng(3);
  const Tensor img = RandomTensor(rng, DType::kFloat32, {1, 5, 7, 2});
  const Tensor hm = MakeTensor(DType::kFloat64, {1, 3, 3}, {h, h + 9});
  Tensor out(DType::kFloat32, {1, 3, 4, 2});
  for (Mode m : kModes) {
    ASSERT_TRUE(gridsample::WarpPerspective(img.View(), hm.View(), out.MutableView(),
                                            {m, Padding::kBorder, false, {}})
                    .ok());
    for (int64_t k = 0; k < out.size(); ++k) {
      ASSERT_EQ(out.Get(k), img.Get(6 * 2 + k % 2)) << "row 0, last column; " << Name(m);
    }
  }
}

// Worked by hand: the identity reproduces X in every mode and padding; an integer translation
// shifts it (border padding repeats the edge); a map whose w grows along the row puts output
// pixels 16 and 48 exactly on input columns 8 and 12 (x = j / w, w = 1 + j / 16); H = -I puts every
// point behind the camera: all 0.
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

// --- Remap's pixel rule against exact arithmetic ---------------------------------------------

// Reflection's reduction of a far position (pixel_rule.h) moves it by whole periods: the same
// fraction, a floor congruent modulo the period (checked in int64), and the result within a
// period of the image; positions that are not far stay as they are.
TEST(PixelRule, FarReflectionMovesByWholePeriods) {
  std::mt19937 rng(55);
  int64_t reduced = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const int64_t size = std::uniform_int_distribution<int64_t>(1, 5000)(rng);
    const bool align = iter % 2 == 1;
    const double period = gridsample::ReflectionPeriod(size, align);
    for (int k = 0; k < 50; ++k) {
      const float u = HostilePixel(rng, size);
      if (!std::isfinite(u)) continue;
      const float r = gridsample::ReducePixel(u, size, align);
      if (!gridsample::PixelIsFar(u, period)) {
        ASSERT_EQ(r, u) << u << " on " << size << " pixels";
        continue;
      }
      ++reduced;
      const std::string what = std::to_string(u) + " on " + std::to_string(size) + " pixels";
      ASSERT_GE(r, -period - 0.5) << what;
      ASSERT_LT(r, period) << what;
      if (std::fabs(u) > 1e18f) continue;  // beyond int64: the bounds only
      ASSERT_EQ(u - std::floor(u), r - std::floor(r)) << what;
      const auto whole = static_cast<int64_t>(std::floor(u)) - static_cast<int64_t>(std::floor(r));
      ASSERT_EQ(whole % static_cast<int64_t>(period), 0) << what;
    }
  }
  EXPECT_GT(reduced, 1000);
}

// Remap and WarpFlow (planes and channels-last) sample pixel positions as they are: where the
// positions and weights are
// exact in binary (eighths for linear, halves for cubic, ties for nearest) and every tap lies
// inside X, the result is the exact weighted sum (integer X values: the float32 sums are exact),
// on every target, for sizes that are not powers of two. (Through a normalised coordinate the
// result was off by a unit in the last place: OpenCV's Imgproc_Remap.issue_23562.)
class PixelPositions : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(PixelPositions);

// The exact value at (u, v) of plane `c` of an (H, W, C) image, every tap inside.
double ExactSample(const Tensor& x, int64_t c, double u, double v, Mode mode) {
  const int64_t w = x.shape()[2], channels = x.shape()[3];
  const auto at = [&](int64_t i, int64_t j) { return x.Get((i * w + j) * channels + c); };
  if (mode == Mode::kNearest) {
    return at(static_cast<int64_t>(std::nearbyint(v)), static_cast<int64_t>(std::nearbyint(u)));
  }
  const auto weights = [&](double t, double* wt) {  // taps floor - 1 .. floor + 2
    const double a = -0.75;
    const auto near = [a](double s) { return ((a + 2) * s - (a + 3)) * s * s + 1; };
    const auto far = [a](double s) { return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a; };
    if (mode == Mode::kLinear) {
      wt[0] = 0, wt[1] = 1 - t, wt[2] = t, wt[3] = 0;
    } else {
      wt[0] = far(t + 1), wt[1] = near(t), wt[2] = near(1 - t), wt[3] = far(2 - t);
    }
  };
  const double fu = std::floor(u), fv = std::floor(v);
  double wu[4], wv[4];
  weights(u - fu, wu);
  weights(v - fv, wv);
  double sum = 0;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      const double wgt = wu[b] * wv[a];
      if (wgt != 0)
        sum += wgt * at(static_cast<int64_t>(fv) - 1 + a, static_cast<int64_t>(fu) - 1 + b);
    }
  }
  return sum;
}

TEST_P(PixelPositions, ExactPositionsGiveExactSums) {
  std::mt19937 rng(23562);
  for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {7, 11}, {37, 100}}) {
    for (Mode mode : kModes) {
      // Positions whose taps stay inside: cubic reads floor - 1 .. floor + 2.
      const double step = mode == Mode::kLinear ? 0.125 : 0.5;
      const double lo = mode == Mode::kCubic ? 1 : 0;
      const auto position = [&](int64_t size) {
        const double hi = mode == Mode::kCubic ? static_cast<double>(size) - 3 : size - 1.0;
        const auto steps = static_cast<int64_t>((hi - lo) / step);
        return lo + step * std::uniform_int_distribution<int64_t>(0, steps)(rng);
      };
      if (mode == Mode::kCubic && std::min(h, w) < 5) continue;
      for (int64_t c : {1, 3, 4}) {
        Tensor x(DType::kFloat32, {1, h, w, c});
        for (int64_t k = 0; k < x.size(); ++k) {
          x.Set(k, std::uniform_int_distribution<int>(0, 255)(rng));
        }
        const int64_t ho = 5, wo = 9;
        Tensor map(DType::kFloat32, {1, ho, wo, 2}), flow(DType::kFloat32, {1, ho, wo, 2});
        for (int64_t p = 0; p < ho * wo; ++p) {
          const double u = position(w), v = position(h);
          map.Set(2 * p, u);
          map.Set(2 * p + 1, v);
          flow.Set(2 * p, u - static_cast<double>(p % wo));  // exact: small dyadic values
          flow.Set(2 * p + 1, v - static_cast<double>(p / wo));
        }
        for (Padding pad : kPaddings) {
          const GridSampleOptions o{mode, pad, pad == Padding::kReflection, {}};
          Tensor y(DType::kFloat32, {1, ho, wo, c}), yf(DType::kFloat32, {1, ho, wo, c});
          ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), y.MutableView(), o).ok());
          ASSERT_TRUE(
              gridsample::WarpFlowChannelsLast(x.View(), flow.View(), yf.MutableView(), o).ok());
          // WarpFlow on planes: X and the flow (N, 2, Ho, Wo) moved to channels first.
          Tensor planes(DType::kFloat32, {1, c, h, w}),
              flow_planes(DType::kFloat32, {1, 2, ho, wo});
          for (int64_t k = 0; k < x.size(); ++k) planes.Set(k % c * h * w + k / c, x.Get(k));
          for (int64_t p = 0; p < ho * wo; ++p) {
            flow_planes.Set(p, flow.Get(2 * p));
            flow_planes.Set(ho * wo + p, flow.Get(2 * p + 1));
          }
          Tensor yp(DType::kFloat32, {1, c, ho, wo});
          ASSERT_TRUE(
              gridsample::WarpFlow(planes.View(), flow_planes.View(), yp.MutableView(), o).ok());
          for (int64_t p = 0; p < ho * wo; ++p) {
            for (int64_t k = 0; k < c; ++k) {
              const double want = ExactSample(x, k, map.Get(2 * p), map.Get(2 * p + 1), mode);
              const std::string what = std::string("X ") + std::to_string(h) + "x" +
                                       std::to_string(w) + " C=" + std::to_string(c) + " at (" +
                                       std::to_string(map.Get(2 * p)) + ", " +
                                       std::to_string(map.Get(2 * p + 1)) + ") " + Describe(o);
              ASSERT_EQ(y.Get(p * c + k), want) << "Remap " << what;
              ASSERT_EQ(yf.Get(p * c + k), want) << "WarpFlowChannelsLast " << what;
              ASSERT_EQ(yp.Get(k * ho * wo + p), want) << "WarpFlow " << what;
            }
          }
        }
      }
    }
  }
}

// WarpPerspective samples its pixel positions as they are too: an H that moves output pixels by
// eighths or halves (w = 1), or halves their positions (w = 2), gives the exact weighted sums on
// sizes that are not powers of two, every mode, on every target.
TEST_P(PixelPositions, WarpPerspectiveAtExactPositionsGivesExactSums) {
  std::mt19937 rng(8);
  const int64_t h = 13, w = 37, c = 3, ho = 6, wo = 20;
  Tensor x(DType::kFloat32, {1, h, w, c});
  for (int64_t k = 0; k < x.size(); ++k) x.Set(k, std::uniform_int_distribution<int>(0, 255)(rng));
  for (Mode mode : kModes) {
    // Eighths for linear, halves for the others (cubic weights of eighths are not short).
    const bool eighths = mode == Mode::kLinear;
    for (const std::vector<double>& m :
         {std::vector<double>{1, 0, eighths ? 3.375 : 3.5, 0, 1, eighths ? 2.625 : 2.5, 0, 0, 1},
          std::vector<double>{1, 0, eighths ? 6.5 : 7, 0, 1, eighths ? 4.25 : 5, 0, 0, 2}}) {
      const Tensor hm = MakeTensor(DType::kFloat64, {1, 3, 3}, m);
      Tensor y(DType::kFloat32, {1, ho, wo, c});
      const GridSampleOptions o{mode, Padding::kZeros, false, {}};
      ASSERT_TRUE(gridsample::WarpPerspective(x.View(), hm.View(), y.MutableView(), o).ok());
      for (int64_t i = 0; i < ho; ++i) {
        for (int64_t j = 0; j < wo; ++j) {
          const double u = (j + m[2]) / m[8], v = (i + m[5]) / m[8];
          for (int64_t k = 0; k < c; ++k) {
            ASSERT_EQ(y.Get((i * wo + j) * c + k), ExactSample(x, k, u, v, mode))
                << "at (" << u << ", " << v << "), w = " << m[8] << " " << Describe(o);
          }
        }
      }
    }
  }
}

// OpenCV's Imgproc_Remap.issue_23562 (second loop): a half-pixel position on a 3x3 image
// samples exactly 17, for 1 to 4 channels (its BORDER_TRANSPARENT reads no pixel outside).
TEST_P(PixelPositions, OpenCvIssue23562) {
  const std::vector<double> mx = {0, 1, 2, 0, 1, 2, 0, 1, 2}, my = {0, 0, 0, 1, 1, 1, 2, 2, 1.5};
  const std::vector<double> want = {0, 1, 2, 10, 11, 12, 20, 21, 17};
  for (int64_t c = 1; c <= 4; ++c) {
    std::vector<double> values;
    for (double v : {0, 1, 2, 10, 11, 12, 20, 21, 22}) values.insert(values.end(), c, v);
    const Tensor x = MakeTensor(DType::kFloat32, {1, 3, 3, c}, values);
    Tensor y(DType::kFloat32, {1, 3, 3, c});
    const GridSampleOptions o{Mode::kLinear, Padding::kBorder, false, {}};
    ASSERT_TRUE(gridsample::Remap(x.View(), MakeTensor(DType::kFloat32, {1, 3, 3}, mx).View(),
                                  MakeTensor(DType::kFloat32, {1, 3, 3}, my).View(),
                                  y.MutableView(), o)
                    .ok());
    for (int64_t p = 0; p < 9; ++p) {
      for (int64_t k = 0; k < c; ++k) ASSERT_EQ(y.Get(p * c + k), want[p]) << p << ", C=" << c;
    }
  }
}

// The reference's pixel positions against an independent route in double: GridSample of a
// float64 X on the float64 grid of the exactly normalised positions (every mode, padding and
// align, positions inside and around X; far ones are PixelRule's). Within float32 rounding.
TEST(PixelRule, RemapFollowsTheNormalisedGridInDouble) {
  std::mt19937 rng(77);
  double worst = 0;
  for (int iter = 0; iter < 60; ++iter) {
    const Shape s = RandomShape(rng, 3);
    const Tensor x = RandomTensor(rng, DType::kFloat32, {1, s.h, s.w, s.c});
    Tensor map(DType::kFloat32, {1, s.ho, s.wo, 2});
    for (int64_t p = 0; p < s.ho * s.wo; ++p) {
      map.Set(2 * p, std::uniform_real_distribution<float>(-2.0f * s.w, 3.0f * s.w)(rng));
      map.Set(2 * p + 1, std::uniform_real_distribution<float>(-2.0f * s.h, 3.0f * s.h)(rng));
    }
    Tensor x64(DType::kFloat64, {1, s.c, s.h, s.w});
    for (int64_t i = 0; i < s.h * s.w; ++i) {
      for (int64_t c = 0; c < s.c; ++c) x64.Set(c * s.h * s.w + i, x.Get(i * s.c + c));
    }
    for (Mode m : kModes) {
      for (Padding pad : kPaddings) {
        for (bool align : kAligns) {
          const GridSampleOptions o{m, pad, align, {}};
          Tensor grid(DType::kFloat64, {1, s.ho, s.wo, 2});
          for (int64_t p = 0; p < s.ho * s.wo; ++p) {
            for (int a = 0; a < 2; ++a) {
              const double u = map.Get(2 * p + a), size = a == 0 ? s.w : s.h;
              const double g =
                  align ? (size > 1 ? 2 * u / (size - 1) - 1 : 0) : (2 * u + 1) / size - 1;
              grid.Set(2 * p + a, g);
            }
          }
          Tensor want(DType::kFloat64, {1, s.c, s.ho, s.wo}),
              got(DType::kFloat32, {1, s.ho, s.wo, s.c});
          ASSERT_TRUE(
              gridsample::reference::GridSample(x64.View(), grid.View(), want.MutableView(), o)
                  .ok());
          ASSERT_TRUE(
              gridsample::reference::Remap(x.View(), map.View(), got.MutableView(), o).ok());
          for (int64_t p = 0; p < s.ho * s.wo; ++p) {
            for (int64_t c = 0; c < s.c; ++c) {
              const double e = want.Get(c * s.ho * s.wo + p), v = got.Get(p * s.c + c);
              // The exact g rounds in double; align 1 with S = 1 maps every u to pixel 0.
              const bool s1 = align && (s.w == 1 || s.h == 1);
              if (s1) continue;
              const double err = std::fabs(v - e);
              worst = std::max(worst, err);
              ASSERT_LE(err, 2e-5) << "at (" << map.Get(2 * p) << ", " << map.Get(2 * p + 1)
                                   << ") on " << s.h << "x" << s.w << " " << Describe(o);
            }
          }
        }
      }
    }
  }
  std::printf("reference Remap against the normalised grid in double: largest difference %g\n",
              worst);
}

// Worked by hand, on sides that are not powers of two (positions are sampled as they are): an
// identity map reproduces X in every mode and padding; planes shifted by whole pixels with
// border padding repeat the edge; a huge finite position follows the padding rule (border: the
// edge pixel), an infinite one samples 0.
TEST(ChannelsLastPublic, RemapHandWorked) {
  constexpr int64_t kH = 7, kW = 13;
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, kH, kW, 2});
  Tensor map(DType::kFloat32, {1, kH, kW, 2}), mx(DType::kFloat32, {1, kH, kW}),
      my(DType::kFloat32, {1, kH, kW});
  for (int64_t i = 0; i < kH; ++i) {
    for (int64_t j = 0; j < kW; ++j) {
      map.Set(2 * (i * kW + j), j);
      map.Set(2 * (i * kW + j) + 1, i);
      mx.Set(i * kW + j, j + 2);
      my.Set(i * kW + j, i - 3);
    }
  }
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      for (bool align : kAligns) {
        const GridSampleOptions o{m, pad, align, {}};
        Tensor y(DType::kFloat32, {1, kH, kW, 2});
        ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), y.MutableView(), o).ok());
        for (int64_t k = 0; k < x.size(); ++k) ASSERT_EQ(y.Get(k), x.Get(k)) << Describe(o);
      }
    }
  }
  Tensor y(DType::kFloat32, {1, kH, kW, 2});
  const GridSampleOptions border{Mode::kLinear, Padding::kBorder, false, {}};
  ASSERT_TRUE(gridsample::Remap(x.View(), mx.View(), my.View(), y.MutableView(), border).ok());
  for (int64_t i = 0; i < kH; ++i) {
    for (int64_t j = 0; j < kW; ++j) {
      for (int64_t c = 0; c < 2; ++c) {
        const int64_t si = std::clamp<int64_t>(i - 3, 0, kH - 1);
        const int64_t sj = std::clamp<int64_t>(j + 2, 0, kW - 1);
        ASSERT_EQ(y.Get((i * kW + j) * 2 + c), x.Get((si * kW + sj) * 2 + c)) << i << ", " << j;
      }
    }
  }
  const Tensor far = MakeTensor(DType::kFloat32, {1, 1, 3, 2},
                                {std::numeric_limits<float>::max(), 0, -3e38, 5, kInf, 0});
  Tensor yf(DType::kFloat32, {1, 1, 3, 2});
  ASSERT_TRUE(gridsample::Remap(x.View(), far.View(), yf.MutableView(), border).ok());
  EXPECT_EQ(yf.Get(0), x.Get((kW - 1) * 2));  // row 0, last column
  EXPECT_EQ(yf.Get(2), x.Get((5 * kW) * 2));  // row 5, first column
  EXPECT_EQ(yf.Get(4), 0.0);                  // infinite: 0
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
  // Each call's inputs are also given to the shape query the JS package sizes Y with.
  auto call = [&](const TensorView& xv, const TensorView& gv, const MutableTensorView& yv) {
    const Status s = gridsample::GridSampleChannelsLast(xv, gv, yv, {});
    ExpectQueryAgrees(gridsample::GridSampleChannelsLastOutputShape, "GridSampleChannelsLast",
                      {"X", "grid"}, xv, gv, s, {2, 6, 7, 3});  // every valid pair's
    return s;
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
