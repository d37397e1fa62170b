// The NCHW GridSample fast paths against the scalar reference, once per compiled SIMD target.
//
// Random shapes hit vector tails; all modes, paddings and aligns; hostile coordinates.
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast_path_tester.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace gridsample_test {
namespace {

// A grid value drawn to reach interior points, exact borders, far outside, and the
// hostile values of DESIGN.md section 2.
float HostileCoordinate(std::mt19937& rng) {
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  std::uniform_real_distribution<float> u(-1.2f, 1.2f);
  if (kind < 70) return u(rng);
  if (kind < 76) return kind % 2 ? -1.0f : 1.0f;  // exactly on the border
  if (kind < 84) return u(rng) * 6.0f;            // several reflections
  if (kind < 88)
    return std::ldexp(static_cast<float>(std::uniform_int_distribution<int>(-64, 64)(rng)),
                      -5);  // pixel centres, ties
  if (kind < 91) return std::numeric_limits<float>::quiet_NaN();
  if (kind < 93)
    return kind % 2 ? std::numeric_limits<float>::infinity()
                    : -std::numeric_limits<float>::infinity();
  if (kind < 96) return kind % 2 ? 1e30f : -1e30f;
  if (kind < 98) return kind % 2 ? std::numeric_limits<float>::max() : -3e9f;
  return std::numeric_limits<float>::denorm_min();
}

struct Problem {
  Tensor x, grid;  // float32
};

Problem RandomProblem(std::mt19937& rng, int rank) {
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const int64_t n = dim(1, 2), c = dim(1, 9);
  std::vector<int64_t> x_shape{n, c}, grid_shape{n};
  for (int a = 0; a < rank; ++a) {
    x_shape.push_back(dim(1, 19));
    grid_shape.push_back(dim(1, rank == 3 ? 9 : 19));
  }
  grid_shape.push_back(rank);
  Problem p{Tensor(DType::kFloat32, x_shape), Tensor(DType::kFloat32, grid_shape)};
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int64_t i = 0; i < p.x.size(); ++i) p.x.Set(i, value(rng));
  for (int64_t i = 0; i < p.grid.size(); ++i) p.grid.Set(i, HostileCoordinate(rng));
  return p;
}

TEST(FastPaths, TargetsAreCompiled) {
  const std::vector<std::string> targets = gridsample::AvailableTargets();
  ASSERT_FALSE(targets.empty());
  std::string names;
  for (const std::string& t : targets) names += t + " ";
  std::printf("fast-path targets on this machine: %s(dispatch picks %s)\n", names.c_str(),
              gridsample::ActiveTarget());
}

// The dispatcher's choice is the caller's to override (benchmarks compare targets with it):
// each available target can be forced and is then the one that runs, a bad name is an error
// that changes nothing, and '' restores the default, which is the first (best) target.
TEST(FastPaths, DispatchTargetIsConfigurable) {
  const std::vector<std::string> targets = gridsample::AvailableTargets();
  ASSERT_FALSE(targets.empty());
  const std::string chosen = gridsample::ActiveTarget();
  EXPECT_EQ(chosen, targets.front());
  for (const std::string& t : targets) {
    ASSERT_TRUE(gridsample::SetTarget(t).ok()) << t;
    EXPECT_EQ(std::string(gridsample::ActiveTarget()), t);
    EXPECT_EQ(gridsample::AvailableTargets(), targets) << "forcing " << t << " narrowed the list";
  }
  ASSERT_TRUE(gridsample::SetTarget(targets.back()).ok());
  const Status bad = gridsample::SetTarget("AVX9000");
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("'AVX9000'"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("'" + targets.front() + "'"), std::string::npos) << bad.message();
  EXPECT_EQ(std::string(gridsample::ActiveTarget()), targets.back())
      << "a bad name changed the target";
  ASSERT_TRUE(gridsample::SetTarget("").ok());
  EXPECT_EQ(std::string(gridsample::ActiveTarget()), chosen);
}

class FastPaths : public PerTargetTest {};
GRIDSAMPLE_INSTANTIATE_PER_TARGET(FastPaths);

// Fast path and reference agree exactly in every padding: the reference folds taps that pad onto
// one pixel as the planner does (their weights added first) and sums in the plan's order.
TEST_P(FastPaths, Float32MatchesReference) {
  int64_t covered = 0;
  std::mt19937 rng(1234);
  for (int rank : {2, 3}) {
    for (int iter = 0; iter < 60; ++iter) {
      const Problem p = RandomProblem(rng, rank);
      for (Mode m : kModes) {
        for (Padding pad : kPaddings) {
          for (bool align : kAligns) {
            const FastPathRun run = FastPathTester()
                                        .x(p.x)
                                        .grid(p.grid)
                                        .mode(m)
                                        .padding(pad)
                                        .align(align)
                                        .fast_path()
                                        .tolerance(0.0)
                                        .Test();
            if (HasFatalFailure()) return;
            covered += run.ran;
          }
        }
      }
    }
  }
  EXPECT_GT(covered, 0);
}

// The other X types the reference computes in float (float16, bfloat16, 8/16-bit integers)
// and the other grid types run the same float32 plans on converted values: the result is the
// reference's exactly. float64, int32 and uint32 X stay on the reference (double).
TEST_P(FastPaths, OtherDTypesMatchReference) {
  int64_t covered = 0;
  std::mt19937 rng(99);
  for (int rank : {2, 3}) {
    for (int iter = 0; iter < 4; ++iter) {
      const Problem p = RandomProblem(rng, rank);
      for (size_t xi = 0; xi < std::size(kAllDTypes); ++xi) {
        const DType xt = kAllDTypes[xi];
        const DType gt = kGridDTypes[(iter + xi) % std::size(kGridDTypes)];
        if (xt == DType::kFloat32 && gt == DType::kFloat32) continue;  // the test above
        // X values that use the integer types' range, negative ones only where allowed.
        const bool is_unsigned =
            xt == DType::kUint8 || xt == DType::kUint16 || xt == DType::kUint32;
        const double scale = IsInteger(xt) ? 100.0 : 1.0;
        Tensor x(xt, p.x.shape());
        for (int64_t i = 0; i < x.size(); ++i) {
          x.Set(i, scale * (is_unsigned ? p.x.Get(i) + 1.0 : p.x.Get(i)));
        }
        const Tensor grid = p.grid.Converted(gt);
        for (Mode m : kModes) {
          for (Padding pad : kPaddings) {
            for (bool align : kAligns) {
              const FastPathRun run = FastPathTester()
                                          .x(x)
                                          .grid(grid)
                                          .mode(m)
                                          .padding(pad)
                                          .align(align)
                                          .fast_path()
                                          .tolerance(0.0)
                                          .nan_equal(true)
                                          .Test();
              if (HasFatalFailure()) return;
              covered += run.ran;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(covered, 0);
}

// Taps that border or reflection padding maps onto one pixel (coordinates up to 1.6 past the
// edges, axes from the window's size up) are folded alike by the planner and the reference: on
// sizes the fast path takes, the two give the same bits in every mode and rank it covers.
TEST_P(FastPaths, FoldedTapsEqualTheReferenceBitForBit) {
  struct Shape {
    std::vector<int64_t> in, out;
  };
  const Shape kShapes[] = {{{4, 5}, {9, 11}}, {{6, 4}, {7, 13}}, {{4, 4, 5}, {3, 5, 6}}};
  uint32_t seed = 11;
  int64_t differing = 0;
  for (const Shape& shape : kShapes) {
    for (Mode m : {Mode::kLinear, Mode::kCubic}) {
      for (Padding p : {Padding::kBorder, Padding::kReflection}) {
        for (bool align : kAligns) {
          const FastPathRun run = FastPathTester()
                                      .batch(2)
                                      .channels(3)
                                      .in(shape.in)
                                      .out(shape.out)
                                      .mode(m)
                                      .padding(p)
                                      .align(align)
                                      .grid_range(1.6)
                                      .seed(seed++)
                                      .fast_path(true)
                                      .bit_exact()
                                      .Test();
          if (HasFatalFailure()) return;
          differing += run.differing;
        }
      }
    }
  }
  EXPECT_EQ(differing, 0);
}

// float16 X is converted to float32 and back with vectorised conversions: every one of the
// 65536 bit patterns through nearest sampling at pixel centres (the conversion both ways, NaN,
// Inf and subnormals included), and the exact midpoint of each pair of neighbours through
// linear sampling (the ties of round-to-nearest-even, subnormal and overflow boundaries):
// bit for bit the reference's on every target, but for NaN payloads and the sign of zero
// (those are the blends' (an x86 NaN keeps its first operand's sign; 0 + -0 is +0), not the
// conversions'): equal values, NaN matching NaN.
TEST_P(FastPaths, Float16ConversionsMatchReference) {
  constexpr int64_t kSide = 256;
  Tensor x(DType::kFloat16, {1, 1, kSide, kSide});
  uint16_t* bits = static_cast<uint16_t*>(x.data());
  for (int64_t i = 0; i < kSide * kSide; ++i) bits[i] = static_cast<uint16_t>(i);
  // align 0: pixel coordinate p is grid value (2p + 1) / S - 1, exact in binary for S = 256.
  auto grid_of = [&](int64_t width, double dx) {
    Tensor grid(DType::kFloat32, {1, kSide, width, 2});
    for (int64_t r = 0; r < kSide; ++r) {
      for (int64_t c = 0; c < width; ++c) {
        grid.Set(2 * (r * width + c), (2.0 * (c + dx) + 1.0) / kSide - 1.0);
        grid.Set(2 * (r * width + c) + 1, (2.0 * r + 1.0) / kSide - 1.0);
      }
    }
    return grid;
  };
  const struct {
    Mode mode;
    int64_t width;
    double dx;
  } kCases[] = {{Mode::kNearest, kSide, 0.0}, {Mode::kLinear, kSide - 1, 0.5}};
  for (const auto& c : kCases) {
    FastPathTester()
        .x(x)
        .grid(grid_of(c.width, c.dx))
        .mode(c.mode)
        .padding(Padding::kZeros)
        .align(false)
        .fast_path(true)
        .tolerance(0.0)
        .nan_equal(true)
        .Test();
    if (HasFatalFailure()) return;
  }
}

// The public entry point (SIMD where compiled) against the scalar reference on random
// dyadic grids, on shapes that exercise vector bodies, tails and far-outside coordinates,
// within DESIGN.md's tolerances: nearest exact (the dyadic grid makes every coordinate
// exact), linear 1e-5 and cubic 2e-4 relative, one more ulp for float16 and bfloat16, and
// integer outputs one level apart where float rounding meets a .5 tie.
TEST_P(FastPaths, PublicMatchesReference) {
  struct Shape {
    std::vector<int64_t> in, out;
  };
  const Shape kShapes[] = {{{13}, {37}},     {{5, 7}, {4, 9}},       {{11, 19}, {17, 33}},
                           {{1, 9}, {3, 8}}, {{4, 5, 6}, {3, 5, 9}}, {{3, 2, 4, 5}, {2, 3, 2, 7}}};
  uint32_t seed = 1;
  for (const Shape& shape : kShapes) {
    for (Mode m : kModes) {
      for (Padding p : kPaddings) {
        for (bool align : kAligns) {
          for (DType xt : {DType::kFloat32, DType::kUint8, DType::kFloat16}) {
            const bool blend = m != Mode::kNearest;
            const double abs = IsInteger(xt) && blend ? 1.0 : 0.0;
            const double rel = !IsInteger(xt) && blend ? (m == Mode::kLinear ? 1e-5 : 2e-4) : 0.0;
            const double ulps = xt == DType::kFloat16 || xt == DType::kBFloat16 ? 1.0 : 0.0;
            for (double range : {1.1, 3.5}) {
              FastPathTester()
                  .batch(2)
                  .channels(3)
                  .in(shape.in)
                  .out(shape.out)
                  .mode(m)
                  .padding(p)
                  .align(align)
                  .x_dtype(xt)
                  .grid_range(range)
                  .seed(seed++)
                  .tolerance(abs, rel, ulps)
                  .Test();
              if (HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
