// Every SIMD fast path against the scalar reference, on every compiled Highway target, over
// random shapes that hit vector tails, all modes/paddings/aligns and hostile coordinates.
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast/fast.h"
#include "gtest/gtest.h"
#include "reference/reference.h"
#include "test_util.h"
#include "validate.h"

namespace gridsample_test {
namespace {

namespace fast = gridsample::fast;

// A grid value drawn to reach interior points, exact borders, far outside, and the
// hostile values of DESIGN.md section 2.
float HostileCoordinate(std::mt19937& rng) {
  const int kind = std::uniform_int_distribution<int>(0, 99)(rng);
  std::uniform_real_distribution<float> u(-1.2f, 1.2f);
  if (kind < 70) return u(rng);
  if (kind < 76) return kind % 2 ? -1.0f : 1.0f;                    // exactly on the border
  if (kind < 84) return u(rng) * 6.0f;                              // several reflections
  if (kind < 88) return std::ldexp(static_cast<float>(std::uniform_int_distribution<int>(-64, 64)(rng)), -5);  // pixel centres, ties
  if (kind < 91) return std::numeric_limits<float>::quiet_NaN();
  if (kind < 93) return kind % 2 ? std::numeric_limits<float>::infinity()
                                 : -std::numeric_limits<float>::infinity();
  if (kind < 96) return kind % 2 ? 1e30f : -1e30f;
  if (kind < 98) return kind % 2 ? std::numeric_limits<float>::max() : -3e9f;
  return std::numeric_limits<float>::denorm_min();
}

struct Problem {
  std::vector<int64_t> x_shape, grid_shape, y_shape;
  std::vector<float> x, grid;
};

Problem RandomProblem(std::mt19937& rng, int rank) {
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Problem p;
  const int64_t n = dim(1, 2), c = dim(1, 9);
  p.x_shape = {n, c};
  p.grid_shape = {n};
  p.y_shape = {n, c};
  for (int a = 0; a < rank; ++a) {
    p.x_shape.push_back(dim(1, 19));
    const int64_t o = dim(1, rank == 3 ? 9 : 19);
    p.grid_shape.push_back(o);
    p.y_shape.push_back(o);
  }
  p.grid_shape.push_back(rank);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  p.x.resize(NumElements(p.x_shape));
  for (float& v : p.x) v = value(rng);
  p.grid.resize(NumElements(p.grid_shape));
  for (float& g : p.grid) g = HostileCoordinate(rng);
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
  EXPECT_EQ(std::string(gridsample::ActiveTarget()), targets.back()) << "a bad name changed the target";
  ASSERT_TRUE(gridsample::SetTarget("").ok());
  EXPECT_EQ(std::string(gridsample::ActiveTarget()), chosen);
}

// Fast path and reference agree; zeros padding equals the reference exactly (the plan
// keeps the reference's weights and order), border and reflection within a few ulps
// (taps that pad onto the same pixel have their weights added first).
TEST(FastPaths, MatchReferenceOnEveryTarget) {
  int64_t covered = 0;
  for (const std::string& target : gridsample::AvailableTargets()) {
    TargetScope scope(target);
    const std::string target_name = target;
    std::mt19937 rng(1234);
    for (int rank : {2, 3}) {
      for (int iter = 0; iter < 60; ++iter) {
        Problem p = RandomProblem(rng, rank);
        const size_t r = p.x_shape.size();
        const TensorView x{p.x.data(), DType::kFloat32, p.x_shape.data(), r};
        const TensorView grid{p.grid.data(), DType::kFloat32, p.grid_shape.data(), r};
        gridsample::GridSampleGeometry geo;
        ASSERT_TRUE(gridsample::ValidateGridSample(x, grid, nullptr, &geo).ok());
        const int64_t count = NumElements(p.y_shape);
        for (Mode m : kModes) {
          for (Padding pad : kPaddings) {
            for (bool align : kAligns) {
              const GridSampleOptions o{m, pad, align};
              std::vector<float> want(count), got(count, -7.0f);
              ASSERT_TRUE(gridsample::reference::GridSample(
                              x, grid, {want.data(), DType::kFloat32, p.y_shape.data(), r}, o)
                              .ok());
              const bool ran = fast::GridSample(
                  geo, x, grid, {got.data(), DType::kFloat32, p.y_shape.data(), r}, o);
              // Which problems the fast paths take is part of the contract with the tests.
              const int window = m == Mode::kNearest ? 1 : (m == Mode::kLinear ? 2 : 4);
              bool eligible = true;
              for (int a = 0; a < rank; ++a) eligible = eligible && geo.in[a] >= window;
              ASSERT_EQ(ran, eligible) << target_name << " x" << ToString(p.x_shape) << ' '
                                       << Describe(o);
              if (!ran) continue;
              ++covered;
              const double atol = pad == Padding::kZeros ? 0.0 : 4e-6;
              for (int64_t i = 0; i < count; ++i) {
                ASSERT_LE(std::fabs(got[i] - want[i]), atol)
                    << target_name << ' ' << Describe(o) << " x" << ToString(p.x_shape)
                    << " grid" << ToString(p.grid_shape) << " output " << i << " (of " << count
                    << "): got " << got[i] << " want " << want[i];
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(covered, 0);
}

// The other X types the reference computes in float (float16, bfloat16, 8/16-bit integers)
// and the other grid types run the same float32 plans on converted values: the result is the
// reference's, up to the float32 differences above carried through the final rounding (one
// level or one ulp of the type). float64, int32 and uint32 X stay on the reference (double).
TEST(FastPaths, OtherDTypesMatchReferenceOnEveryTarget) {
  int64_t covered = 0;
  for (const std::string& target : gridsample::AvailableTargets()) {
    TargetScope scope(target);
    const std::string target_name = target;
    std::mt19937 rng(99);
    for (int rank : {2, 3}) {
      for (int iter = 0; iter < 4; ++iter) {
        const Problem p = RandomProblem(rng, rank);
        for (size_t xi = 0; xi < std::size(kAllDTypes); ++xi) {
          const DType xt = kAllDTypes[xi];
          const DType gt = kGridDTypes[(iter + xi) % std::size(kGridDTypes)];
          if (xt == DType::kFloat32 && gt == DType::kFloat32) continue;  // the test above
          Tensor x(xt, p.x_shape), grid(gt, p.grid_shape);
          // X values that use the integer types' range, negative ones only where allowed.
          const bool is_unsigned = xt == DType::kUint8 || xt == DType::kUint16 || xt == DType::kUint32;
          const double scale = IsInteger(xt) ? 100.0 : 1.0;
          for (int64_t i = 0; i < x.size(); ++i) {
            x.Set(i, scale * (is_unsigned ? p.x[i] + 1.0 : p.x[i]));
          }
          for (int64_t i = 0; i < grid.size(); ++i) grid.Set(i, p.grid[i]);
          gridsample::GridSampleGeometry geo;
          ASSERT_TRUE(gridsample::ValidateGridSample(x.View(), grid.View(), nullptr, &geo).ok());
          for (Mode m : kModes) {
            for (Padding pad : kPaddings) {
              for (bool align : kAligns) {
                const GridSampleOptions o{m, pad, align};
                Tensor want(xt, p.y_shape), got(xt, p.y_shape);
                ASSERT_TRUE(gridsample::reference::GridSample(x.View(), grid.View(),
                                                              want.MutableView(), o).ok());
                got.FillBytes(0xA5);
                const bool ran = fast::GridSample(geo, x.View(), grid.View(), got.MutableView(), o);
                const int window = m == Mode::kNearest ? 1 : (m == Mode::kLinear ? 2 : 4);
                bool eligible = xt != DType::kFloat64 &&
                                xt != DType::kInt32 && xt != DType::kUint32;
                for (int a = 0; a < rank; ++a) eligible = eligible && geo.in[a] >= window;
                ASSERT_EQ(ran, eligible) << target_name << ' ' << Name(xt) << " grid "
                                         << Name(gt) << " x" << ToString(p.x_shape) << ' '
                                         << Describe(o);
                if (!ran) continue;
                ++covered;
                for (int64_t i = 0; i < want.size(); ++i) {
                  const double w = want.Get(i), g = got.Get(i);
                  const double tol =
                      pad == Padding::kZeros ? 0.0 : 4e-6 * scale + Ulp(w, xt);
                  ASSERT_TRUE(std::fabs(g - w) <= tol || (std::isnan(g) && std::isnan(w)))
                      << target_name << ' ' << Name(xt) << " grid " << Name(gt) << ' '
                      << Describe(o) << " x" << ToString(p.x_shape) << " output " << i
                      << ": got " << g << " want " << w;
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(covered, 0);
}

// float16 X is converted to float32 and back with vectorised conversions: every one of the
// 65536 bit patterns through nearest sampling at pixel centres (the conversion both ways, NaN,
// Inf and subnormals included), and the exact midpoint of each pair of neighbours through
// linear sampling (the ties of round-to-nearest-even, subnormal and overflow boundaries):
// bit for bit the reference's on every target, but for NaN payloads and the sign of zero.
TEST(FastPaths, Float16ConversionsMatchReferenceOnEveryTarget) {
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
  for (const std::string& target : gridsample::AvailableTargets()) {
    TargetScope scope(target);
    for (const auto& c : kCases) {
      const Tensor grid = grid_of(c.width, c.dx);
      const GridSampleOptions o{c.mode, Padding::kZeros, false};
      gridsample::GridSampleGeometry geo;
      ASSERT_TRUE(gridsample::ValidateGridSample(x.View(), grid.View(), nullptr, &geo).ok());
      Tensor want(DType::kFloat16, {1, 1, kSide, c.width}), got(DType::kFloat16, {1, 1, kSide, c.width});
      ASSERT_TRUE(gridsample::reference::GridSample(x.View(), grid.View(), want.MutableView(), o).ok());
      ASSERT_TRUE(fast::GridSample(geo, x.View(), grid.View(), got.MutableView(), o)) << target;
      const uint16_t* w = static_cast<const uint16_t*>(want.data());
      const uint16_t* g = static_cast<const uint16_t*>(got.data());
      for (int64_t i = 0; i < want.size(); ++i) {
        // NaN payloads and the sign of zero are the blends' (an x86 NaN keeps its first
        // operand's sign; 0 + -0 is +0), not the conversions'.
        const bool both_nan = (w[i] & 0x7FFF) > 0x7C00 && (g[i] & 0x7FFF) > 0x7C00;
        const bool both_zero = (w[i] & 0x7FFF) == 0 && (g[i] & 0x7FFF) == 0;
        ASSERT_TRUE(w[i] == g[i] || both_nan || both_zero)
            << target << ' ' << Describe(o) << " output " << i << ": got 0x" << std::hex << g[i]
            << " want 0x" << w[i];
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Public entry point (SIMD where compiled) against the scalar reference, XNNPACK style,
// on shapes that exercise vector bodies, tails and far-outside coordinates.

TEST(GridSampleTester, PublicMatchesReference) {
  struct Shape {
    std::vector<int64_t> in, out;
  };
  const Shape kShapes[] = {
      {{13}, {37}}, {{5, 7}, {4, 9}}, {{11, 19}, {17, 33}}, {{1, 9}, {3, 8}},
      {{4, 5, 6}, {3, 5, 9}}, {{3, 2, 4, 5}, {2, 3, 2, 7}}};
  uint32_t seed = 1;
  for (const Shape& shape : kShapes) {
    for (Mode m : kModes) {
      for (Padding p : kPaddings) {
        for (bool align : kAligns) {
          for (DType xt : {DType::kFloat32, DType::kUint8, DType::kFloat16}) {
            for (double range : {1.1, 3.5}) {
              GridSampleTester()
                  .batch(2)
                  .channels(3)
                  .in(shape.in)
                  .out(shape.out)
                  .mode(m)
                  .padding(p)
                  .align_corners(align)
                  .x_dtype(xt)
                  .grid_range(range)
                  .seed(seed++)
                  .Test();
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
