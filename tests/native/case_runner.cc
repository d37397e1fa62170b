// Replays a loaded golden case through an implementation and judges its output (case_loader.h).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "case_files.h"
#include "case_loader.h"

namespace gridsample {
namespace conformance {
namespace {

// An output buffer with guard bands on both sides, so that a write out of bounds is
// caught even in builds without AddressSanitizer.
class GuardedOutput {
 public:
  static constexpr size_t kGuardBytes = 64;
  static constexpr unsigned char kGuardByte = 0xA5;

  explicit GuardedOutput(size_t bytes)
      : bytes_(bytes), words_((2 * kGuardBytes + bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t)) {
    unsigned char* all = reinterpret_cast<unsigned char*>(words_.data());
    std::memset(all, kGuardByte, words_.size() * sizeof(uint64_t));
  }
  void Fill(unsigned char byte) {
    if (bytes_) std::memset(Bytes(), byte, bytes_);
  }
  // Null for an empty output (see Tensor::data).
  void* data() { return bytes_ == 0 ? nullptr : Bytes(); }
  const void* data() const { return const_cast<GuardedOutput*>(this)->data(); }
  bool GuardsIntact() const {
    const unsigned char* all = reinterpret_cast<const unsigned char*>(words_.data());
    const size_t total = words_.size() * sizeof(uint64_t);
    for (size_t i = 0; i < total; ++i) {
      const bool inside = i >= kGuardBytes && i < kGuardBytes + bytes_;
      if (!inside && all[i] != kGuardByte) return false;
    }
    return true;
  }
  std::string Snapshot() const {
    return std::string(reinterpret_cast<const char*>(words_.data()) + kGuardBytes, bytes_);
  }

 private:
  unsigned char* Bytes() { return reinterpret_cast<unsigned char*>(words_.data()) + kGuardBytes; }
  size_t bytes_;
  std::vector<uint64_t> words_;
};

std::vector<int64_t> Unravel(size_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    const size_t d = static_cast<size_t>(shape[k]);
    index[k] = static_cast<int64_t>(flat % d);
    flat /= d;
  }
  return index;
}

std::string StatusString(const char* call, const Status& s) {
  const char* code = s.code() == StatusCode::kInvalidArgument ? "InvalidArgument"
                     : s.code() == StatusCode::kOutOfRange    ? "OutOfRange"
                                                              : "Unknown";
  return std::string(call) + " returned " + code + ": " + s.message();
}

// Runs the case once into `out` (prefilled with `fill`); empty string on success.
std::string Invoke(const Case& c, const Implementation& impl, GuardedOutput* out,
                   unsigned char fill) {
  out->Fill(fill);
  const DType out_dtype = Info(c.expected.dtype).dtype;
  const MutableTensorView y{out->data(), out_dtype, c.expected.shape.data(),
                            c.expected.shape.size()};
  Status s;
  const char* call = nullptr;
  if (c.op == "GridSample") {
    if (!impl.grid_sample) return impl.name + " has no GridSample";
    const TensorView x{c.x.data(), Info(c.x.dtype).dtype, c.x.shape.data(), c.x.shape.size()};
    const TensorView grid{c.grid.data(), Info(c.grid.dtype).dtype, c.grid.shape.data(),
                          c.grid.shape.size()};
    call = "GridSample";
    s = impl.grid_sample(x, grid, y, c.grid_sample_options);
  } else {
    if (!impl.affine_grid) return impl.name + " has no AffineGrid";
    const TensorView theta{c.theta.data(), Info(c.theta.dtype).dtype, c.theta.shape.data(),
                           c.theta.shape.size()};
    call = "AffineGrid";
    s = impl.affine_grid(theta, c.size.data(), c.size.size(), y, c.affine_grid_options);
  }
  if (!s.ok()) return StatusString(call, s);
  if (!out->GuardsIntact()) return std::string(call) + " wrote outside the output buffer";
  return "";
}

// The library's own shape query must give exactly expected.shape.
std::string CheckOutputShape(const Case& c) {
  // Room for any rank the API accepts, whatever the case's rank.
  std::vector<int64_t> shape(kMaxSpatialRank + 3, -1);
  Status s;
  size_t rank = 0;
  if (c.op == "GridSample") {
    const TensorView x{c.x.data(), Info(c.x.dtype).dtype, c.x.shape.data(), c.x.shape.size()};
    const TensorView grid{c.grid.data(), Info(c.grid.dtype).dtype, c.grid.shape.data(),
                          c.grid.shape.size()};
    if (x.rank > shape.size()) return "X has rank " + std::to_string(x.rank);
    s = GridSampleOutputShape(x, grid, shape.data());
    if (!s.ok()) return StatusString("GridSampleOutputShape", s);
    rank = x.rank;
  } else {
    if (c.size.size() > shape.size()) {
      return "size has " + std::to_string(c.size.size()) + " entries";
    }
    s = AffineGridOutputShape(c.size.data(), c.size.size(), shape.data());
    if (!s.ok()) return StatusString("AffineGridOutputShape", s);
    rank = c.size.size();
  }
  shape.resize(rank);
  if (shape != c.expected.shape) {
    return "output shape " + ShapeString(shape) + ", expected " + ShapeString(c.expected.shape);
  }
  return "";
}

void CompareExact(const Case& c, const void* out, CaseResult* r) {
  const FileDType dtype = c.expected.dtype;
  double worst = -1.0;
  bool has_nan = false;
  for (size_t i = 0; i < c.expected.element_count; ++i) {
    const double got = Decode(dtype, out, i);
    const double want = c.expected.At(i);
    // got == want first so that equal infinities count as exact, not inf - inf = NaN.
    double err = got == want ? 0.0 : std::fabs(got - want);
    if (std::isnan(got)) has_nan = true;
    if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
    if (err > worst) {
      worst = err;
      r->worst_flat_index = static_cast<int64_t>(i);
      r->got = got;
      r->expected = want;
    }
  }
  r->max_abs_error = worst < 0 ? 0.0 : worst;
  r->atol = c.atol;
  r->passed = !has_nan && r->max_abs_error <= c.atol;
  if (has_nan) {
    // Point at the first NaN, which is what the reader needs to find.
    for (size_t i = 0; i < c.expected.element_count; ++i) {
      const double got = Decode(dtype, out, i);
      if (std::isnan(got)) {
        r->worst_flat_index = static_cast<int64_t>(i);
        r->got = got;
        r->expected = c.expected.At(i);
        break;
      }
    }
    r->error = "output contains NaN";
  }
}

void CompareRange(const Case& c, const void* out, CaseResult* r) {
  const std::vector<int64_t>& shape = c.expected.shape;
  const size_t channels = static_cast<size_t>(shape[1]);
  size_t inner = 1;
  for (size_t k = 2; k < shape.size(); ++k) inner *= static_cast<size_t>(shape[k]);
  double worst = -1.0;
  for (size_t i = 0; i < c.expected.element_count; ++i) {
    const size_t n = i / (channels * inner);
    const size_t ch = (i / inner) % channels;
    const double lo = c.range_lo[n][ch] - c.range_atol;
    const double hi = c.range_hi[n][ch] + c.range_atol;
    const double got = Decode(c.expected.dtype, out, i);
    double outside = 0.0;
    if (!std::isfinite(got)) {
      outside = std::numeric_limits<double>::infinity();
    } else if (got < lo) {
      outside = lo - got;
    } else if (got > hi) {
      outside = got - hi;
    }
    if (outside > worst) {
      worst = outside;
      r->worst_flat_index = static_cast<int64_t>(i);
      r->got = got;
      r->range_lo = lo;
      r->range_hi = hi;
      r->expected = std::isfinite(got) && got < lo ? lo : hi;
    }
  }
  r->max_abs_error = worst < 0 ? 0.0 : worst;
  r->atol = c.range_atol;
  r->passed = r->max_abs_error == 0.0;
  if (!r->passed && !std::isfinite(r->got)) r->error = "output is not finite";
}

std::string FormatDouble(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

Implementation PublicImplementation() {
  return {"public", &gridsample::GridSample, &gridsample::AffineGrid};
}

Implementation ReferenceImplementation() {
  return {"reference", &gridsample::reference::GridSample, &gridsample::reference::AffineGrid};
}

CaseResult RunCase(const Case& c, const Implementation& impl) {
  CaseResult r;
  r.name = c.name;
  r.category = c.category;
  r.implementation = impl.name;
  r.range_only = c.range_only;
  r.atol = c.range_only ? c.range_atol : c.atol;
  r.element_count = c.expected.element_count;

  r.error = CheckOutputShape(c);
  if (!r.error.empty()) return r;

  const size_t bytes = c.expected.element_count * Info(c.expected.dtype).size;
  GuardedOutput out(bytes);
  // 0xFF bytes are NaN in every float type, so an element left unwritten fails.
  r.error = Invoke(c, impl, &out, 0xFF);
  if (!r.error.empty()) return r;
  if (Info(c.expected.dtype).is_integer && bytes) {
    // Integers have no NaN: run again over another fill and require the same bytes.
    const std::string first = out.Snapshot();
    r.error = Invoke(c, impl, &out, 0x00);
    if (!r.error.empty()) return r;
    if (out.Snapshot() != first) {
      r.error = "output differs between two runs (elements left unwritten?)";
      return r;
    }
    // The second run (0x00 fill) is the one compared; both are equal anyway.
  }

  if (c.range_only) {
    CompareRange(c, out.data(), &r);
  } else {
    CompareExact(c, out.data(), &r);
  }
  if (r.worst_flat_index >= 0) {
    r.worst_index = Unravel(static_cast<size_t>(r.worst_flat_index), c.expected.shape);
  }
  return r;
}

CaseResult LoadAndRunCase(const std::string& dir, const std::string& name,
                          const Implementation& impl) {
  Case c;
  std::string error;
  if (!LoadCase(dir, name, &c, &error)) {
    CaseResult r;
    r.name = name;
    r.category = c.category;
    r.implementation = impl.name;
    r.error = error;
    return r;
  }
  return RunCase(c, impl);
}

std::string DescribeResult(const CaseResult& r) {
  std::string s = r.passed ? "PASS " : "FAIL ";
  s += r.name + " [" + (r.category.empty() ? "-" : r.category) + "] (" + r.implementation + ")";
  if (r.worst_flat_index < 0) {
    if (!r.error.empty()) return s + ": " + r.error;
    return s + ": " + std::to_string(r.element_count) + " elements";
  }
  s += ": worst " + ShapeString(r.worst_index) + " (flat " + std::to_string(r.worst_flat_index) +
       "): got " + FormatDouble("%.9g", r.got);
  if (r.range_only) {
    s += ", allowed [" + FormatDouble("%.9g", r.range_lo) + ", " +
         FormatDouble("%.9g", r.range_hi) + "] (range atol " + FormatDouble("%.3g", r.atol) +
         "), outside by " + FormatDouble("%.3g", r.max_abs_error);
  } else {
    s += ", expected " + FormatDouble("%.9g", r.expected) + ", abs error " +
         FormatDouble("%.3g", r.max_abs_error) + (r.max_abs_error <= r.atol ? " <= " : " > ") +
         "atol " + FormatDouble("%.3g", r.atol);
  }
  if (!r.error.empty()) s += ": " + r.error;
  return s;
}

}  // namespace conformance
}  // namespace gridsample
