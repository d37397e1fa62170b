// Shared helpers of the native gtest suites: tensors of any dtype, exact rounding, target tests.
#ifndef GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/types.h"
#include "gtest/gtest.h"
#include "reference/reference.h"
#include "rules/perspective_rule.h"

namespace gridsample_test {

using gridsample::AffineGridOptions;
using gridsample::DType;
using gridsample::GridSampleOptions;
using gridsample::Mode;
using gridsample::MutableTensorView;
using gridsample::Padding;
using gridsample::Status;
using gridsample::StatusCode;
using gridsample::TensorView;

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
// Element types, written independently of the library (half.h is under test too).

inline size_t ElementSize(DType t) {
  switch (t) {
    case DType::kFloat64: return 8;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUint32: return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUint16: return 2;
    case DType::kInt8:
    case DType::kUint8: return 1;
  }
  return 0;
}

inline const char* Name(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kInt8: return "int8";
    case DType::kUint8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kUint16: return "uint16";
    case DType::kInt32: return "int32";
    case DType::kUint32: return "uint32";
  }
  return "?";
}
inline const char* Name(Mode m) {
  switch (m) {
    case Mode::kLinear: return "linear";
    case Mode::kNearest: return "nearest";
    case Mode::kCubic: return "cubic";
  }
  return "?";
}
inline const char* Name(Padding p) {
  switch (p) {
    case Padding::kZeros: return "zeros";
    case Padding::kBorder: return "border";
    case Padding::kReflection: return "reflection";
  }
  return "?";
}

inline bool IsInteger(DType t) {
  return t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16 &&
         t != DType::kBFloat16;
}

inline double IntMin(DType t) {
  switch (t) {
    case DType::kInt8: return -128.0;
    case DType::kInt16: return -32768.0;
    case DType::kInt32: return -2147483648.0;
    default: return 0.0;
  }
}
inline double IntMax(DType t) {
  switch (t) {
    case DType::kInt8: return 127.0;
    case DType::kUint8: return 255.0;
    case DType::kInt16: return 32767.0;
    case DType::kUint16: return 65535.0;
    case DType::kInt32: return 2147483647.0;
    case DType::kUint32: return 4294967295.0;
    default: return 0.0;
  }
}

// Round v to a binary format with `precision` significant bits, smallest normal 2^min_exp
// and largest finite `max_finite`, to nearest even, overflowing to infinity. Scaling by a
// power of two is exact, so nearbyint (ties to even) does the whole rounding.
inline double RoundToBinaryFormat(double v, int precision, int min_exp, double max_finite) {
  if (!std::isfinite(v) || v == 0.0) return v;
  int e = 0;
  std::frexp(v, &e);                          // |v| in [2^(e-1), 2^e)
  const int lead = std::max(e - 1, min_exp);  // subnormals share the smallest normal's quantum
  const double quantum = std::ldexp(1.0, lead - (precision - 1));
  const double r = std::nearbyint(v / quantum) * quantum;
  if (std::fabs(r) > max_finite) return std::copysign(HUGE_VAL, v);
  return r;
}

inline constexpr double kHalfMax = 65504.0;
inline constexpr double kBFloat16Max = 0x1.FEp127;  // 0x7F7F

inline double RoundToHalf(double v) { return RoundToBinaryFormat(v, 11, -14, kHalfMax); }
inline double RoundToBFloat16(double v) { return RoundToBinaryFormat(v, 8, -126, kBFloat16Max); }
inline double RoundToFloat(double v) { return RoundToBinaryFormat(v, 24, -126, FLT_MAX); }

// The value a result of exact value v must have in dtype t: floats round to nearest even,
// integers round half to even and saturate (DESIGN.md section 2).
inline double RoundToDType(double v, DType t) {
  switch (t) {
    case DType::kFloat64: return v;
    case DType::kFloat32: return RoundToFloat(v);
    case DType::kFloat16: return RoundToHalf(v);
    case DType::kBFloat16: return RoundToBFloat16(v);
    default: break;
  }
  if (std::isnan(v)) return 0.0;
  const double r = std::nearbyint(v);
  return std::min(std::max(r, IntMin(t)), IntMax(t));
}

// Spacing of dtype t's values around |v| (1 for integers).
inline double Ulp(double v, DType t) {
  int precision = 53, min_exp = -1022;
  switch (t) {
    case DType::kFloat64: break;
    case DType::kFloat32:
      precision = 24;
      min_exp = -126;
      break;
    case DType::kFloat16:
      precision = 11;
      min_exp = -14;
      break;
    case DType::kBFloat16:
      precision = 8;
      min_exp = -126;
      break;
    default: return 1.0;
  }
  int e = 0;
  std::frexp(v == 0.0 ? 1e-300 : v, &e);
  return std::ldexp(1.0, std::max(e - 1, min_exp) - (precision - 1));
}

inline double HalfBitsToDouble(uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  if (exp == 0x1F) return mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  return sign * std::ldexp(1024 + mant, exp - 25);
}

// Bits of a value that is already a half (or +-inf / NaN).
inline uint16_t HalfBitsFromDouble(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  const double a = std::fabs(v);
  if (std::isnan(v)) return static_cast<uint16_t>(sign | 0x7E00u);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a < 0x1p-14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(a * 0x1p24));
  int e = 0;
  std::frexp(a, &e);
  const int lead = e - 1;
  const auto mant = static_cast<uint16_t>(std::ldexp(a, -lead) * 1024.0 - 1024.0);
  return static_cast<uint16_t>(sign | ((lead + 15) << 10) | mant);
}

inline double BFloat16BitsToDouble(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Bits of a value that is already a bfloat16 (or +-inf / NaN).
inline uint16_t BFloat16BitsFromDouble(double v) {
  if (std::isnan(v)) return std::signbit(v) ? 0xFFC0u : 0x7FC0u;
  const float f = static_cast<float>(v);  // exact: v is a bfloat16 value or +-inf
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}

// ---------------------------------------------------------------------------
// Shapes.

inline int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
  return flat;
}

inline std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return index;
}

template <typename T>
std::string ToString(const std::vector<T>& v) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
  s << ']';
  return s.str();
}

// ---------------------------------------------------------------------------
// An owned dense tensor of any dtype. Get() is exact; Set() rounds like RoundToDType.

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, std::vector<int64_t> shape) : dtype_(dtype), shape_(std::move(shape)) {
    int64_t n = 1;
    for (int64_t d : shape_) n *= std::max<int64_t>(d, 0);
    // double-typed storage keeps every element naturally aligned.
    storage_.assign(static_cast<size_t>((n * static_cast<int64_t>(ElementSize(dtype_)) + 7) / 8),
                    0.0);
  }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  int64_t size() const { return NumElements(shape_); }
  size_t bytes() const { return static_cast<size_t>(size()) * ElementSize(dtype_); }
  void* data() { return storage_.data(); }
  const void* data() const { return storage_.data(); }

  TensorView View() const {
    TensorView v;
    v.data = storage_.empty() ? nullptr : storage_.data();
    v.dtype = dtype_;
    v.shape = shape_.data();
    v.rank = shape_.size();
    return v;
  }
  MutableTensorView MutableView() {
    MutableTensorView v;
    v.data = storage_.empty() ? nullptr : storage_.data();
    v.dtype = dtype_;
    v.shape = shape_.data();
    v.rank = shape_.size();
    return v;
  }

  double Get(int64_t i) const {
    const auto* p = reinterpret_cast<const uint8_t*>(storage_.data()) + i * ElementSize(dtype_);
    switch (dtype_) {
      case DType::kFloat32: return Load<float>(p);
      case DType::kFloat64: return Load<double>(p);
      case DType::kFloat16: return HalfBitsToDouble(Load<uint16_t>(p));
      case DType::kBFloat16: return BFloat16BitsToDouble(Load<uint16_t>(p));
      case DType::kInt8: return Load<int8_t>(p);
      case DType::kUint8: return Load<uint8_t>(p);
      case DType::kInt16: return Load<int16_t>(p);
      case DType::kUint16: return Load<uint16_t>(p);
      case DType::kInt32: return Load<int32_t>(p);
      case DType::kUint32: return Load<uint32_t>(p);
    }
    return 0.0;
  }
  double Get(const std::vector<int64_t>& index) const { return Get(Ravel(index, shape_)); }

  void Set(int64_t i, double v) {
    auto* p = reinterpret_cast<uint8_t*>(storage_.data()) + i * ElementSize(dtype_);
    v = RoundToDType(v, dtype_);
    switch (dtype_) {
      case DType::kFloat32: Store(p, static_cast<float>(v)); break;
      case DType::kFloat64: Store(p, v); break;
      case DType::kFloat16: Store(p, HalfBitsFromDouble(v)); break;
      case DType::kBFloat16: Store(p, BFloat16BitsFromDouble(v)); break;
      case DType::kInt8: Store(p, static_cast<int8_t>(v)); break;
      case DType::kUint8: Store(p, static_cast<uint8_t>(v)); break;
      case DType::kInt16: Store(p, static_cast<int16_t>(v)); break;
      case DType::kUint16: Store(p, static_cast<uint16_t>(v)); break;
      case DType::kInt32: Store(p, static_cast<int32_t>(v)); break;
      case DType::kUint32: Store(p, static_cast<uint32_t>(v)); break;
    }
  }
  void Set(const std::vector<int64_t>& index, double v) { Set(Ravel(index, shape_), v); }

  void FillBytes(uint8_t b) {  // (memset on an empty vector's null data() would be undefined)
    if (!storage_.empty()) std::memset(storage_.data(), b, storage_.size() * sizeof(double));
  }
  // True when every byte of the storage (including padding) is b: nothing was written.
  bool AllBytesAre(uint8_t b) const {
    const auto* p = reinterpret_cast<const uint8_t*>(storage_.data());
    for (size_t i = 0; i < storage_.size() * sizeof(double); ++i) {
      if (p[i] != b) return false;
    }
    return true;
  }

  // Same values in another dtype (exact when representable there).
  Tensor Converted(DType t) const {
    Tensor out(t, shape_);
    for (int64_t i = 0; i < size(); ++i) out.Set(i, Get(i));
    return out;
  }

 private:
  template <typename T>
  static T Load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  template <typename T>
  static void Store(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }

  DType dtype_ = DType::kFloat32;
  std::vector<int64_t> shape_;
  std::vector<double> storage_;
};

inline Tensor MakeTensor(DType t, std::vector<int64_t> shape, const std::vector<double>& values) {
  Tensor out(t, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(values.size()), out.size()) << "test data has the wrong length";
  for (int64_t i = 0; i < out.size() && i < static_cast<int64_t>(values.size()); ++i) {
    out.Set(i, values[static_cast<size_t>(i)]);
  }
  return out;
}

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

// The (N, Ho, Wo, 2) float32 map of WarpPerspective's input pixel positions for H (N, 3, 3):
// perspective_rule.h's values, stored (that rule is tested against the exact projection in
// warp_perspective_rule_test.cc), for Remap to sample.
inline Tensor PerspectivePositions(const Tensor& h, int64_t ho, int64_t wo) {
  const int64_t n = h.shape()[0];
  Tensor map(DType::kFloat32, {n, ho, wo, 2});
  for (int64_t b = 0; b < n; ++b) {
    double m[9];
    for (int k = 0; k < 9; ++k) m[k] = h.Get(b * 9 + k);
    const gridsample::PerspectiveMap pm = gridsample::PerspectiveMapOf(m);
    for (int64_t i = 0; i < ho; ++i) {
      const gridsample::PerspectiveTerms terms = gridsample::PerspectiveRowTerms(pm, i);
      for (int64_t j = 0; j < wo; ++j) {
        float x, y;
        gridsample::PerspectiveCoordinates(terms, j, &x, &y);
        const int64_t at = ((b * ho + i) * wo + j) * 2;
        map.Set(at, x);
        map.Set(at + 1, y);
      }
    }
  }
  return map;
}

// Remap's output by the scalar reference (pixel_rule.h; the fast paths' oracle), for an
// interleaved map (N, Ho, Wo, 2), or planes map_x and map_y (N, Ho, Wo) when map_y is given, on
// X (N, H, W, C). The reference itself is checked against exact arithmetic in
// pixel_rule_test.cc (PixelRule).
inline Status ReferenceRemap(const Tensor& x, const Tensor& map_x, const Tensor* map_y,
                             const GridSampleOptions& o, Tensor* y) {
  const std::vector<int64_t>& s = map_x.shape();
  *y = Tensor(x.dtype(), {s[0], s[1], s[2], x.shape()[3]});
  if (map_y == nullptr)
    return gridsample::reference::Remap(x.View(), map_x.View(), y->MutableView(), o);
  return gridsample::reference::Remap(x.View(), map_x.View(), map_y->View(), y->MutableView(), o);
}

// WarpFlow's output by the scalar reference, for a flow (N, 2, Ho, Wo) on X (N, C, H, W).
inline Status ReferenceWarpFlow(const Tensor& x, const Tensor& flow, const GridSampleOptions& o,
                                Tensor* y) {
  const std::vector<int64_t>& s = flow.shape();
  *y = Tensor(x.dtype(), {s[0], x.shape()[1], s[2], s[3]});
  return gridsample::reference::WarpFlow(x.View(), flow.View(), y->MutableView(), o);
}

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_TEST_UTIL_H_
