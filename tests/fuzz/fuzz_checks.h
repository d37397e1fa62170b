// The fuzz targets' checks: fresh outputs and layouts, agreement with the reference, reports.
//
// The tolerances are the ones tests/native states; a finding is printed and stops the process.
#ifndef GRIDSAMPLE_TESTS_FUZZ_FUZZ_CHECKS_H_
#define GRIDSAMPLE_TESTS_FUZZ_FUZZ_CHECKS_H_

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "gridsample/gridsample.h"
#include "test_util.h"  // Tensor, dtype facts and names, the tolerances' helpers (tests/native)

namespace gridsample_fuzz {

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
// X plane has largest finite |value| `scale`: exact in every mode, padding and dtype (the
// reference folds taps as the planner does: fast_paths_test.cc). Non-finite X values are outside
// the contract (README: a weight-0 tap still multiplies its pixel, and under a non-finite
// coordinate the SIMD paths may too); so are sums overflowing the type: there only finite
// results on both sides are compared.
inline Tolerance GridSampleTolerance(DType t, const GridSampleOptions& o, double scale,
                                     bool x_nonfinite, double /*want*/) {
  Tolerance tol;
  if (o.mode == Mode::kNearest) return tol;
  tol.nonfinite_ok = x_nonfinite || scale > MaxFinite(t) / 8;
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
// blend is within 1 level.
inline bool ChannelsLastAgree(const Tensor& got, const Tensor& want, int64_t i,
                              const GridSampleOptions& o, const ChannelMagnitudes& m) {
  const int64_t plane = (i / (got.size() / m.n)) * m.c + i % m.c;
  Tolerance tol =
      GridSampleTolerance(got.dtype(), o, m.scale[plane], m.nonfinite[plane] != 0, want.Get(i));
  if (got.dtype() == DType::kUint8 && o.mode == Mode::kLinear) tol.abs = 1.0;
  return Agree(got.Get(i), want.Get(i), tol);
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

}  // namespace gridsample_fuzz

#endif  // GRIDSAMPLE_TESTS_FUZZ_FUZZ_CHECKS_H_
