// Shared helpers of the native gtest suites: what to loop over, random data, per-target tests.
//
// Element types are test_dtypes.h's, tensors test_tensor.h's and the reference's outputs
// oracles.h's.
#ifndef GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/types.h"
#include "gtest/gtest.h"
#include "test_dtypes.h"
#include "test_tensor.h"

namespace gridsample_test {

using gridsample::AffineGridOptions;
using gridsample::GridSampleOptions;
using gridsample::Status;
using gridsample::StatusCode;

// ---------------------------------------------------------------------------
// Enumerations to loop over.

inline constexpr Mode kModes[] = {Mode::kLinear, Mode::kNearest, Mode::kCubic};
inline constexpr Padding kPaddings[] = {Padding::kZeros, Padding::kBorder, Padding::kReflection};
inline constexpr bool kAligns[] = {false, true};
inline constexpr DType kAllDTypes[] = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
    DType::kUint8,   DType::kInt16,   DType::kUint16,  DType::kInt32,    DType::kUint32};
inline constexpr DType kGridDTypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                        DType::kBFloat16};

// Both implementations behind the public contract: every property must hold for each.
using GridSampleFn = Status (*)(const TensorView&, const TensorView&, const MutableTensorView&,
                                const GridSampleOptions&);
using AffineGridFn = Status (*)(const TensorView&, const int64_t*, size_t, const MutableTensorView&,
                                const AffineGridOptions&);
struct Kernel {
  const char* name;
  GridSampleFn grid_sample;
  AffineGridFn affine_grid;
};
inline const Kernel kKernels[] = {
    {"public", &gridsample::GridSample, &gridsample::AffineGrid},
    {"reference", &gridsample::reference::GridSample, &gridsample::reference::AffineGrid},
};

// ---------------------------------------------------------------------------
// Random data. Grid values are dyadic (k / 64) so that they are exact in every grid dtype
// and pixel coordinates come out exact in float32 and float64 alike: then every path picks
// the same taps and weights and only the blend's rounding differs.

inline double RandomDyadic(std::mt19937& rng, double lo, double hi, int log2_denominator = 6) {
  const double scale = std::ldexp(1.0, log2_denominator);
  std::uniform_int_distribution<int64_t> k(static_cast<int64_t>(std::ceil(lo * scale)),
                                           static_cast<int64_t>(std::floor(hi * scale)));
  return static_cast<double>(k(rng)) / scale;
}

// Values spread over dtype t's range (floats: [-lo_hi, lo_hi]); ints hit both extremes often,
// so cubic overshoot saturates.
inline double RandomValue(std::mt19937& rng, DType t, double float_range = 4.0) {
  if (!IsInteger(t)) {
    return RoundToDType(std::uniform_real_distribution<double>(-float_range, float_range)(rng), t);
  }
  std::uniform_int_distribution<int> pick(0, 9);
  const int p = pick(rng);
  if (p == 0) return IntMin(t);
  if (p == 1) return IntMax(t);
  return std::floor(std::uniform_real_distribution<double>(IntMin(t), IntMax(t) + 1.0)(rng));
}

inline Tensor RandomTensor(std::mt19937& rng, DType t, std::vector<int64_t> shape,
                           double float_range = 4.0) {
  Tensor out(t, std::move(shape));
  for (int64_t i = 0; i < out.size(); ++i) out.Set(i, RandomValue(rng, t, float_range));
  return out;
}

inline Tensor RandomGrid(std::mt19937& rng, DType t, std::vector<int64_t> shape,
                         double range = 1.25) {
  Tensor out(t, std::move(shape));
  for (int64_t i = 0; i < out.size(); ++i) out.Set(i, RandomDyadic(rng, -range, range));
  return out;
}

inline std::vector<int64_t> GridShape(int64_t n, const std::vector<int64_t>& out) {
  std::vector<int64_t> s{n};
  s.insert(s.end(), out.begin(), out.end());
  s.push_back(static_cast<int64_t>(out.size()));
  return s;
}
inline std::vector<int64_t> TensorShape(int64_t n, int64_t c, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> s{n, c};
  s.insert(s.end(), spatial.begin(), spatial.end());
  return s;
}

inline std::string Describe(const GridSampleOptions& o) {
  std::ostringstream s;
  s << "mode=" << Name(o.mode) << " padding=" << Name(o.padding)
    << " align_corners=" << (o.align_corners ? 1 : 0);
  return s.str();
}

// Runs a grid-sample kernel into a fresh y of the right shape and x's dtype.
inline Status RunGridSample(GridSampleFn fn, const Tensor& x, const Tensor& grid,
                            const GridSampleOptions& options, Tensor* y) {
  std::vector<int64_t> y_shape{x.shape().at(0), x.shape().at(1)};
  for (size_t i = 1; i + 1 < grid.rank(); ++i) y_shape.push_back(grid.shape()[i]);
  *y = Tensor(x.dtype(), y_shape);
  return fn(x.View(), grid.View(), y->MutableView(), options);
}

// Describes output element `flat` of y: "n=0 c=1 at [2,3]".
inline std::string WhereInY(const Tensor& y, int64_t flat) {
  const std::vector<int64_t> idx = Unravel(flat, y.shape());
  std::ostringstream s;
  s << "n=" << idx[0] << " c=" << idx[1] << " pixel=[";
  for (size_t i = 2; i < idx.size(); ++i) s << (i > 2 ? "," : "") << idx[i];
  s << ']';
  return s.str();
}

// ---------------------------------------------------------------------------
// One test instance per SIMD target compiled in and supported here, named by the target
// ("PerTarget/FastPaths.Float32MatchesReference/AVX2"): the fast paths run on that target
// for the test's duration, on the default choice afterwards. Declare a suite with
// `class MySuite : public PerTargetTest {};`, write TEST_P(MySuite, ...) and instantiate it
// with GRIDSAMPLE_INSTANTIATE_PER_TARGET(MySuite).

class PerTargetTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const Status s = gridsample::SetTarget(GetParam());
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void TearDown() override { gridsample::SetTarget(""); }
  const std::string& target() const { return GetParam(); }
};

inline std::string TargetParamName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

#define GRIDSAMPLE_INSTANTIATE_PER_TARGET(suite)                                                  \
  INSTANTIATE_TEST_SUITE_P(PerTarget, suite, ::testing::ValuesIn(gridsample::AvailableTargets()), \
                           ::gridsample_test::TargetParamName)

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_
