// The fuzz targets' input: a byte reader, palettes of hostile values and the options byte.
//
// Checks of what the calls return are fuzz_checks.h's.
#ifndef GRIDSAMPLE_TESTS_FUZZ_FUZZ_INPUT_H_
#define GRIDSAMPLE_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/gridsample.h"
#include "test_util.h"  // Tensor, dtype facts and names, the tolerances' helpers (tests/native)

namespace gridsample_fuzz {

using gridsample::DType;
using gridsample::GridSampleOptions;
using gridsample::Mode;
using gridsample::MutableTensorView;
using gridsample::Padding;
using gridsample::Status;
using gridsample::TensorView;
using gridsample_test::ElementSize;
using gridsample_test::IsInteger;
using gridsample_test::Name;
using gridsample_test::Tensor;
using gridsample_test::ToString;

// ---------------------------------------------------------------------------------------------
// Reading the input.

// Bytes of the fuzz input, front to back. Past its end come bytes of a generator seeded by the
// whole input: a short input still fills a whole problem, reproducibly, and libFuzzer steers
// shapes and options with the first bytes.
class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {
    uint64_t h = 0xcbf29ce484222325u;  // FNV-1a
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3u;
    state_ = h;
  }

  uint8_t Byte() {
    if (pos_ < size_) return data_[pos_++];
    state_ += 0x9E3779B97F4A7C15u;  // splitmix64
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return static_cast<uint8_t>((z ^ (z >> 31)) >> 56);
  }
  // `count` bytes as a little-endian integer (count <= 8).
  uint64_t Bits(int count) {
    uint64_t v = 0;
    for (int i = 0; i < count; ++i) v |= static_cast<uint64_t>(Byte()) << (8 * i);
    return v;
  }
  void Raw(void* out, size_t count) {
    auto* p = static_cast<uint8_t*>(out);
    for (size_t i = 0; i < count; ++i) p[i] = Byte();
  }
  // 0 .. n-1 (n <= 65536).
  int Below(int n) { return n <= 256 ? Byte() % n : static_cast<int>(Bits(2) % n); }
  bool Flag() { return Byte() & 1; }
  // [lo, hi] in 65536 steps.
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(Bits(2)) / 65535.0;
  }
  template <typename T, size_t K>
  T Pick(const T (&options)[K]) {
    return options[Below(static_cast<int>(K))];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t state_;
};

// ---------------------------------------------------------------------------------------------
// Palettes.

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Values every path must survive: non-finite, beyond and at float's limits, denormals (float's
// and double's), signed zeros, borders, large integers and where float rounding changes.
inline constexpr double kSpecialValues[] = {
    kNaN,
    -kNaN,
    kInf,
    -kInf,
    1e38,
    -1e38,
    3.4e38,
    -3.4e38,
    FLT_MAX,
    -FLT_MAX,
    1e300,
    -1e300,
    1e30,
    -1e30,
    1e-40,
    -1e-40,
    FLT_TRUE_MIN,
    -FLT_TRUE_MIN,
    FLT_MIN,
    DBL_TRUE_MIN,
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1e6,
    -1e6,
    8388608.5,
    -8388608.5,
    8388609.0,
    16777217.0,
    -16777217.0,
    3e9,
    -3e9,
    2147483648.0,
    -2147483649.0,
    4294967296.0,
    65504.0,
    65520.0,
    -65520.0,
    1.0 + 0x1p-23,
    -1.0 - 0x1p-23,
    1.0 - 0x1p-24,
    -1.0 + 0x1p-24,
    0x1p-126,
    3.0,
    -3.0,
    4.0,
    -4.0,
    3.0 + 0x1p-22,
    -3.0 - 0x1p-22,
    1e15,
    -1e15,
};

inline double SpecialValue(FuzzInput& in) { return in.Pick(kSpecialValues); }

// A value of X for dtype t under a per-input profile: 0 plain (uniform over [-4, 4] or the
// integer type's range), 1 also integers and their extremes, 2 also rare special values,
// 3 special values often. Rare special values keep most outputs comparable tightly.
inline double XValue(FuzzInput& in, DType t, int profile) {
  const int kind = in.Byte();
  const int plain = profile == 0 ? 256 : (profile == 1 ? 176 : (profile == 2 ? 248 : 128));
  if (kind < plain) {
    if (!IsInteger(t)) return in.Uniform(-4.0, 4.0);
    return std::floor(in.Uniform(gridsample_test::IntMin(t), gridsample_test::IntMax(t) + 0.999));
  }
  if (profile == 1 || kind < 200) {
    static constexpr double kIntegers[] = {
        0,   1,   -1,    2,     127,    128,          -128,         -129,
        255, 256, 32767, 32768, -32769, 65535,        65536,        0.5,
        1.5, 2.5, -0.5,  254.5, 255.5,  4294967295.0, 2147483647.0, -2147483648.0};
    return in.Pick(kIntegers);
  }
  return SpecialValue(in);
}

// Writes `count` raw fuzz bytes over element i of t (any bit pattern: NaN payloads, denormals).
inline void SetRaw(FuzzInput& in, Tensor* t, int64_t i) {
  const size_t e = ElementSize(t->dtype());
  in.Raw(static_cast<uint8_t*>(t->data()) + static_cast<size_t>(i) * e, e);
}

// Fills X with values of one profile picked by the input; profile 4 takes raw bytes too.
inline void FillX(FuzzInput& in, Tensor* x) {
  static constexpr int kProfiles[] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 4};
  const int profile = in.Pick(kProfiles);
  for (int64_t i = 0; i < x->size(); ++i) {
    if (profile == 4 && in.Byte() < 64) {
      SetRaw(in, x, i);
    } else {
      x->Set(i, XValue(in, x->dtype(), profile == 4 ? 2 : profile));
    }
  }
}

// The largest finite |value| among n elements of t from `first`, and whether any is not finite.
inline void Magnitude(const Tensor& t, int64_t first, int64_t n, double* scale, bool* nonfinite) {
  *scale = 0.0;
  *nonfinite = false;
  for (int64_t i = first; i < first + n; ++i) {
    const double v = t.Get(i);
    if (std::isfinite(v)) {
      *scale = std::max(*scale, std::fabs(v));
    } else {
      *nonfinite = true;
    }
  }
}

// Options from one byte: mode, padding, align_corners.
inline GridSampleOptions ReadOptions(FuzzInput& in) {
  const int b = in.Byte();
  GridSampleOptions o;
  o.mode = static_cast<Mode>(b % 3);
  o.padding = static_cast<Padding>((b / 3) % 3);
  o.align_corners = (b / 9) % 2;
  return o;
}

}  // namespace gridsample_fuzz

#endif  // GRIDSAMPLE_TESTS_FUZZ_FUZZ_INPUT_H_
