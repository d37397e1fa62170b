// Shared pieces of the fuzz targets in tests/fuzz: a byte reader, palettes of hostile values and
// sizes, layout changes, the fast-path-vs-reference comparisons and the report of a finding.
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

#include "gridsample/gridsample.h"
#include "reference/reference.h"
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

// ---------------------------------------------------------------------------------------------
// Tensors and layouts.

// Fill byte of fresh outputs: a call that fails must leave it, a call that succeeds must
// overwrite every element.
inline constexpr uint8_t kSentinel = 0xA5;

inline Tensor Output(DType t, const std::vector<int64_t>& shape) {
  Tensor y(t, shape);
  if (y.size() > 0) y.FillBytes(kSentinel);  // an empty Tensor has no storage to memset
  return y;
}

// (N, C, H, W) -> (N, H, W, C) when `to_last`, else back; byte for byte, exact in every dtype.
inline Tensor MoveChannels(const Tensor& t, bool to_last) {
  const std::vector<int64_t>& s = t.shape();
  const int64_t n = s[0], c = to_last ? s[1] : s[3], plane = to_last ? s[2] * s[3] : s[1] * s[2];
  Tensor out(t.dtype(), to_last ? std::vector<int64_t>{n, s[2], s[3], c}
                                : std::vector<int64_t>{n, c, s[1], s[2]});
  const size_t e = ElementSize(t.dtype());
  const auto* src = static_cast<const uint8_t*>(t.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < plane; ++p) {
        const int64_t first = (b * c + ch) * plane + p, last = (b * plane + p) * c + ch;
        std::memcpy(dst + (to_last ? last : first) * e, src + (to_last ? first : last) * e, e);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparisons, with the tolerances tests/native states.

// How far a fast path's element may be from the reference's.
struct Tolerance {
  double abs = 0.0;           // |got - want| allowed between finite values
  bool nonfinite_ok = false;  // either side may be Inf/NaN where the other is not
};

// Largest finite value of dtype t (where a result's overflow starts).
inline double MaxFinite(DType t) {
  switch (t) {
    case DType::kFloat64: return DBL_MAX;
    case DType::kFloat16: return gridsample_test::kHalfMax;
    case DType::kBFloat16: return gridsample_test::kBFloat16Max;
    default: return FLT_MAX;
  }
}

// NCHW GridSample, public entry point (fast paths) against the reference, for an output whose
// X plane has largest finite |value| `scale`:
// - nearest reads one pixel: exact;
// - integer X: 1 level (test_util.h: float rounding meets a .5 tie);
// - zeros padding: exact (fast_paths_test.cc: the plan keeps the reference's weights and order);
// - border, reflection: folded weights round differently; test_util.h's 1e-5 (linear) and
//   2e-4 (cubic), relative to the plane's scale, plus one ulp of a 16-bit float result.
// Non-finite X values are outside the contract (README: a weight-0 tap still multiplies its
// pixel, and on the SIMD paths also next to a zeros border or under a non-finite coordinate);
// so are sums overflowing the type: there only finite results on both sides are compared.
inline Tolerance GridSampleTolerance(DType t, const GridSampleOptions& o, double scale,
                                     bool x_nonfinite, double want) {
  Tolerance tol;
  if (o.mode == Mode::kNearest) return tol;
  tol.nonfinite_ok = x_nonfinite || scale > MaxFinite(t) / 8;
  if (IsInteger(t)) {
    tol.abs = 1.0;
  } else if (o.padding != Padding::kZeros) {
    tol.abs = (o.mode == Mode::kLinear ? 1e-5 : 2e-4) * std::max(1.0, scale);
    if (t == DType::kFloat16 || t == DType::kBFloat16) tol.abs += gridsample_test::Ulp(want, t);
  }
  return tol;
}

inline bool Agree(double got, double want, const Tolerance& tol) {
  if (std::isnan(got) && std::isnan(want)) return true;
  if (got == want) return true;
  if (!std::isfinite(got) || !std::isfinite(want)) return tol.nonfinite_ok;
  return std::fabs(got - want) <= tol.abs;
}

// Element i of a and b has the same bits, or both are NaN (any payload).
inline bool SameBits(const Tensor& a, const Tensor& b, int64_t i) {
  const size_t e = ElementSize(a.dtype());
  if (std::memcmp(static_cast<const uint8_t*>(a.data()) + i * e,
                  static_cast<const uint8_t*>(b.data()) + i * e, e) == 0) {
    return true;
  }
  return std::isnan(a.Get(i)) && std::isnan(b.Get(i));
}

// Largest finite |value| and whether some value is not finite, per (n, c) of an (N, H, W, C)
// tensor: the scale GridSampleTolerance takes, for channels-last images.
struct ChannelMagnitudes {
  int64_t n = 0, c = 0;
  std::vector<double> scale;
  std::vector<char> nonfinite;
};
inline ChannelMagnitudes MagnitudesNhwc(const Tensor& x) {
  ChannelMagnitudes m;
  m.n = x.shape()[0];
  m.c = x.shape()[3];
  m.scale.assign(m.n * m.c, 0.0);
  m.nonfinite.assign(m.n * m.c, 0);
  const int64_t per_item = m.n == 0 ? 0 : x.size() / m.n;
  for (int64_t i = 0; i < x.size(); ++i) {
    const int64_t plane = (i / per_item) * m.c + i % m.c;
    const double v = x.Get(i);
    if (std::isfinite(v)) {
      m.scale[plane] = std::max(m.scale[plane], std::fabs(v));
    } else {
      m.nonfinite[plane] = 1;
    }
  }
  return m;
}

// Channels-last GridSample and WarpAffine against the NCHW reference: the same contract as
// NCHW (one planner, README "Accuracy"), per output channel; uint8 bilinear's fixed-point
// blend is within the integer types' 1 level.
inline bool ChannelsLastAgree(const Tensor& got, const Tensor& want, int64_t i,
                              const GridSampleOptions& o, const ChannelMagnitudes& m) {
  const int64_t plane = (i / (got.size() / m.n)) * m.c + i % m.c;
  return Agree(
      got.Get(i), want.Get(i),
      GridSampleTolerance(got.dtype(), o, m.scale[plane], m.nonfinite[plane] != 0, want.Get(i)));
}

// ---------------------------------------------------------------------------------------------
// Reporting and targets.

// Prints what disagreed and stops the process (libFuzzer saves the input as a crash).
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "\n=== gridsample fuzz finding ===\n%s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// With GRIDSAMPLE_FUZZ_TRACE set, prints each call before it runs: what a reproducer does.
inline void Trace(const std::string& what) {
  static const bool on = std::getenv("GRIDSAMPLE_FUZZ_TRACE") != nullptr;
  if (on) std::fprintf(stderr, "call: %s\n", what.c_str());
}

inline std::string Describe(const char* op, const Tensor& x, const Tensor& grid,
                            const GridSampleOptions& o, const char* target) {
  std::ostringstream s;
  s << op << " X " << Name(x.dtype()) << ToString(x.shape()) << ' ' << grid.shape().size() << "-d "
    << Name(grid.dtype()) << ToString(grid.shape()) << ' ' << gridsample_test::Describe(o)
    << " target " << target;
  return s.str();
}

inline std::string StatusString(const Status& s) {
  return s.ok() ? std::string("OK")
                : "error " + std::to_string(static_cast<int>(s.code())) + " \"" + s.message() + '"';
}

// Both calls failed alike or both succeeded; a failed call wrote nothing to its output.
inline void CheckSameStatus(const Status& got, const Status& want, const Tensor& out,
                            const std::string& what) {
  if (got.ok() != want.ok() || got.code() != want.code()) {
    Fail(what + ": status " + StatusString(got) + ", reference " + StatusString(want));
  }
  if (!got.ok() && !out.AllBytesAre(kSentinel)) Fail(what + ": output written on error");
}

// "12.5 (0x41480000)": a value and its bits.
inline std::string ValueString(const Tensor& t, int64_t i) {
  const size_t e = ElementSize(t.dtype());
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const uint8_t*>(t.data()) + i * e, e);
  std::ostringstream s;
  s.precision(17);
  s << t.Get(i) << " (0x" << std::hex << bits << ')';
  return s.str();
}

// Runs fn(target name) with dispatch forced to each Highway target compiled in and supported
// here, or once as it is when `every_target` is false; default dispatch afterwards.
template <typename Fn>
void ForEachTarget(bool every_target, Fn&& fn) {
  if (!every_target) {
    fn(gridsample::ActiveTarget());
    return;
  }
  static const std::vector<std::string> targets = gridsample::AvailableTargets();
  for (const std::string& target : targets) {
    gridsample::SetTarget(target);
    fn(target.c_str());
  }
  gridsample::SetTarget("");
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
