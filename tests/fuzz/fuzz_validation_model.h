// fuzz_validation's model of the contract: why a call must fail, written apart from the library.
#ifndef GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_MODEL_H_
#define GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_validation_args.h"

namespace gridsample_fuzz {

// --- the model: what the headers promise, written apart from the library's validation -------

inline size_t Bytes(DType t) { return ElementSize(t); }  // 0 outside the enum
inline bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}
inline bool OptionsValid(const GridSampleOptions& o) {
  const int m = static_cast<int>(o.mode), p = static_cast<int>(o.padding);
  return m >= 0 && m <= 2 && p >= 0 && p <= 2;
}

// A shape's size facts. too_large: the product of its non-zero dims times the element size
// exceeds PTRDIFF_MAX (problem/checks.cc counts a 0 as 1, so that every partial product of an empty
// tensor fits too; types.h: such a size is kOutOfRange).
struct Size {
  bool negative = false;
  bool too_large = false;
  uint64_t bytes = 0;  // exact, when neither of the above
};

inline Size Measure(const std::vector<int64_t>& dims, size_t elem) {
  Size s;
  uint64_t product = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) {
      s.negative = true;
    } else if (d == 0) {
      zero = true;
    } else if (__builtin_mul_overflow(product, static_cast<uint64_t>(d), &product) ||
               product > kMaxBytes) {
      s.too_large = true;
      product = kMaxBytes;
    }
  }
  s.too_large = s.too_large || product > kMaxBytes / (elem ? elem : 1);
  s.bytes = zero || s.too_large ? 0 : product * elem;
  return s;
}

// Why an argument is unusable by itself: no shape pointer, a negative dim, too many bytes, no
// data for a non-empty tensor. Empty when fine.
inline std::string ArgProblem(const char* name, const Arg& a, size_t elem,
                              bool look_at_data = true) {
  if (a.null_shape && a.rank() > 0) return std::string(name) + " has no shape pointer";
  const Size s = Measure(a.dims, elem);
  if (s.negative) return std::string(name) + " has a negative dim";
  if (s.too_large) return std::string(name) + " is too large";
  if (look_at_data && s.bytes > 0 && a.buffer < 0) return std::string(name) + " has null data";
  return "";
}

// Exact bytes of a usable argument.
inline uint64_t ArgBytes(const Arg& a) { return Measure(a.dims, Bytes(a.dtype)).bytes; }

// Output `y` overlaps input `x` (both non-empty, same buffer: every buffer starts at offset 0).
inline bool Overlap(const Arg& y, const Arg& x) {
  return y.buffer >= 0 && y.buffer == x.buffer && ArgBytes(y) > 0 && ArgBytes(x) > 0;
}

// Why the output must be rejected: wrong rank, shape, dtype; unusable; overlapping an input.
inline std::string OutputProblem(const char* name, const Arg& y, const std::vector<int64_t>& want,
                                 DType want_dtype, const std::vector<const Arg*>& inputs) {
  if (y.rank() != want.size() || (y.null_shape && !want.empty()))
    return std::string(name) + " rank or shape pointer";
  if (y.dims != want) return std::string(name) + " shape differs from " + ToString(want);
  if (y.dtype != want_dtype) return std::string(name) + " dtype";
  std::string p = ArgProblem(name, y, Bytes(y.dtype));
  if (!p.empty()) return p;
  for (const Arg* x : inputs) {
    if (Overlap(y, *x)) return std::string(name) + " overlaps an input";
  }
  return "";
}

inline bool Empty(const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (d == 0) return true;
  }
  return false;
}

// GridSample (or, with `shapes_only`, GridSampleOutputShape: dtypes and data not looked at).
inline std::string GridSampleProblem(const Arg& x, const Arg& grid, const Arg* y,
                                     const GridSampleOptions& o, bool shapes_only) {
  if (!shapes_only && !OptionsValid(o)) return "invalid mode or padding";
  if (x.rank() < 3 || x.rank() > 2 + gridsample::kMaxSpatialRank) return "X rank";
  const size_t ex = shapes_only ? 1 : Bytes(x.dtype), eg = shapes_only ? 1 : Bytes(grid.dtype);
  if (ex == 0) return "X dtype";
  std::string p = ArgProblem("X", x, ex, !shapes_only);
  if (!p.empty()) return p;
  if (grid.rank() != x.rank()) return "grid rank";
  if (!shapes_only && !IsFloat(grid.dtype)) return "grid dtype";
  p = ArgProblem("grid", grid, eg, !shapes_only);
  if (!p.empty()) return p;
  const int64_t r = static_cast<int64_t>(x.rank()) - 2;
  if (grid.dims.back() != r) return "grid's last dim is not r";
  if (grid.dims[0] != x.dims[0]) return "grid's N differs from X's";
  std::vector<int64_t> y_shape = {x.dims[0], x.dims[1]};
  y_shape.insert(y_shape.end(), grid.dims.begin() + 1, grid.dims.end() - 1);
  const Size ys = Measure(y_shape, ex);
  if (ys.too_large) return "Y is too large";
  if (!Empty(y_shape) && Empty(x.dims)) return "X is empty, Y is not";
  if (y) return OutputProblem("Y", *y, y_shape, x.dtype, {&x, &grid});
  return "";
}

inline std::vector<int64_t> AffineGridShape(const int64_t* size, size_t len) {
  std::vector<int64_t> g = {size[0]};
  g.insert(g.end(), size + 2, size + len);
  g.push_back(static_cast<int64_t>(len) - 2);
  return g;
}

// AffineGridOutputShape(size, len, out): its own checks only.
inline std::string AffineSizeProblem(const int64_t* size, size_t len) {
  if (size == nullptr) return "size pointer is null";
  if (len != 4 && len != 5) return "size length";
  for (size_t i = 0; i < len; ++i) {
    if (size[i] < 0) return "negative size";
  }
  return "";
}

inline std::string AffineGridProblem(const Arg& theta, const int64_t* size, size_t len,
                                     const Arg& grid) {
  std::string p = AffineSizeProblem(size, len);
  if (!p.empty()) return p;
  if (!IsFloat(theta.dtype)) return "theta dtype";
  p = ArgProblem("theta", theta, Bytes(theta.dtype));
  if (!p.empty()) return p;
  const int64_t r = static_cast<int64_t>(len) - 2;
  if (theta.dims != std::vector<int64_t>{size[0], r, r + 1}) return "theta shape";
  const std::vector<int64_t> g = AffineGridShape(size, len);
  if (Measure(g, Bytes(theta.dtype)).too_large) return "grid is too large";
  return OutputProblem("grid", grid, g, theta.dtype, {&theta});
}

// X (N, H, W, C) of a channels-last call.
inline std::string ChannelsLastXProblem(const Arg& x) {
  if (x.rank() != 4) return "X rank";
  if (Bytes(x.dtype) == 0) return "X dtype";
  return ArgProblem("X", x, Bytes(x.dtype));
}

// Y (N, Ho, Wo, C) of a channels-last call, given the Ho and Wo it must have.
inline std::string ChannelsLastYProblem(const Arg& x, const Arg& y, int64_t ho, int64_t wo,
                                        const Arg& other) {
  const std::vector<int64_t> y_shape = {x.dims[0], ho, wo, x.dims[3]};
  if (Measure(y_shape, Bytes(x.dtype)).too_large) return "Y is too large";
  if (!Empty(y_shape) && Empty(x.dims)) return "X is empty, Y is not";
  return OutputProblem("Y", y, y_shape, x.dtype, {&x, &other});
}

inline std::string WarpAffineProblem(const Arg& x, const Arg& theta, const Arg& y,
                                     const GridSampleOptions& o) {
  if (!OptionsValid(o)) return "invalid mode or padding";
  std::string p = ChannelsLastXProblem(x);
  if (!p.empty()) return p;
  if (theta.dtype != DType::kFloat32 && theta.dtype != DType::kFloat64) return "theta dtype";
  p = ArgProblem("theta", theta, Bytes(theta.dtype));
  if (!p.empty()) return p;
  if (theta.dims != std::vector<int64_t>{x.dims[0], 2, 3}) return "theta shape";
  if (y.rank() != 4 || y.null_shape) return "Y rank or shape pointer";
  if (y.dims[1] < 0 || y.dims[2] < 0) return "Y has a negative size";
  return ChannelsLastYProblem(x, y, y.dims[1], y.dims[2], theta);
}

inline std::string ChannelsLastProblem(const Arg& x, const Arg& grid, const Arg& y,
                                       const GridSampleOptions& o) {
  if (!OptionsValid(o)) return "invalid mode or padding";
  std::string p = ChannelsLastXProblem(x);
  if (!p.empty()) return p;
  if (!IsFloat(grid.dtype)) return "grid dtype";
  p = ArgProblem("grid", grid, Bytes(grid.dtype));
  if (!p.empty()) return p;
  if (grid.rank() != 4 || grid.dims[3] != 2) return "grid shape";
  if (grid.dims[0] != x.dims[0]) return "grid's N differs from X's";
  return ChannelsLastYProblem(x, y, grid.dims[1], grid.dims[2], grid);
}

}  // namespace gridsample_fuzz

#endif  // GRIDSAMPLE_TESTS_FUZZ_FUZZ_VALIDATION_MODEL_H_
