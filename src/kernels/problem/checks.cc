// The checks every operator's validation is made of (checks.h).
#include "problem/checks.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "rules/dtype_traits.h"

namespace gridsample {

std::string ShapeString(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string DTypeString(DType dtype) {
  return DTypeSize(dtype) ? DTypeName(dtype)
                          : "unknown dtype value " + std::to_string(static_cast<int>(dtype));
}

Status Invalid(const char* op, const std::string& what) {
  return Status::InvalidArgument(std::string(op) + ": " + what);
}

namespace {

// Most bytes one tensor may span: a pointer difference must stay representable.
constexpr uint64_t kMaxBytes = static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()) <
                                       static_cast<uint64_t>(std::numeric_limits<size_t>::max())
                                   ? static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max())
                                   : static_cast<uint64_t>(std::numeric_limits<size_t>::max());

}  // namespace

Status CountElements(const char* op, const char* name, const int64_t* dims, size_t rank,
                     size_t elem_size, int64_t* count) {
  const uint64_t limit = kMaxBytes / (elem_size ? elem_size : 1);
  uint64_t product = 1;
  bool zero = false;
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t d = static_cast<uint64_t>(dims[i]);
    if (d == 0) {
      zero = true;
      continue;
    }
    if (product > limit / d) {
      return Status::OutOfRange(std::string(op) + ": " + name + " with shape " +
                                ShapeString(dims, rank) +
                                " has more elements than fit in memory (" +
                                std::to_string(kMaxBytes) + " bytes at most)");
    }
    product *= d;
  }
  *count = zero ? 0 : static_cast<int64_t>(product);
  return Status::Ok();
}

template <Given kGiven>
Status CheckInput(const char* op, const char* name, const TensorView& t, int64_t* count) {
  if (t.rank > 0 && t.shape == nullptr) {
    return Invalid(
        op, std::string(name) + ": shape pointer is null for rank " + std::to_string(t.rank));
  }
  for (size_t i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0) {
      return Invalid(op, std::string(name) + ": dimension " + std::to_string(i) +
                             " must be >= 0, got " + std::to_string(t.shape[i]) + " in shape " +
                             ShapeString(t.shape, t.rank));
    }
  }
  const size_t elem_size = kGiven == Given::kShapes ? 1 : DTypeSize(t.dtype);
  if (elem_size == 0) return Invalid(op, std::string(name) + ": " + DTypeString(t.dtype));
  return CountElements(op, name, t.shape, t.rank, elem_size, count);
}

template Status CheckInput<Given::kShapes>(const char*, const char*, const TensorView&, int64_t*);
template Status CheckInput<Given::kShapesAndDTypes>(const char*, const char*, const TensorView&,
                                                    int64_t*);

Status CheckData(const char* op, const char* name, const TensorView& t) {
  if (t.data != nullptr || ElementCount(t) == 0) return Status::Ok();
  return Invalid(op, std::string(name) + ": data pointer is null for a tensor of shape " +
                         ShapeString(t.shape, t.rank));
}

int64_t ElementCount(const TensorView& t) {
  int64_t count = 1;
  for (size_t i = 0; i < t.rank; ++i) count *= t.shape[i];
  return count;
}

Status CheckFloatDType(const char* op, const char* name, DType dtype) {
  if (IsFloatDType(dtype)) return Status::Ok();
  return Invalid(op, std::string(name) +
                         ": expected dtype float32, float64, float16 or bfloat16, got " +
                         DTypeString(dtype));
}

namespace {

bool Overlaps(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a);
  const uintptr_t pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + static_cast<uintptr_t>(b_bytes) && pb < pa + static_cast<uintptr_t>(a_bytes);
}

}  // namespace

Status CheckOutput(const char* op, const char* name, const MutableTensorView& out, DType want_dtype,
                   const int64_t* want_shape, size_t want_rank,
                   std::initializer_list<Input> inputs) {
  const std::string want = ShapeString(want_shape, want_rank);
  if (out.rank != want_rank || (want_rank > 0 && out.shape == nullptr)) {
    return Invalid(op, std::string(name) + ": expected shape " + want + ", got rank " +
                           std::to_string(out.rank) +
                           (out.shape ? " shape " + ShapeString(out.shape, out.rank)
                                      : std::string(" with a null shape pointer")));
  }
  for (size_t i = 0; i < want_rank; ++i) {
    if (out.shape[i] != want_shape[i]) {
      return Invalid(op, std::string(name) + ": expected shape " + want + ", got " +
                             ShapeString(out.shape, out.rank));
    }
  }
  if (out.dtype != want_dtype) {
    return Invalid(op, std::string(name) + ": expected dtype " + DTypeName(want_dtype) +
                           " (the input's), got " + DTypeString(out.dtype));
  }
  int64_t count = 0;
  const TensorView view = {out.data, out.dtype, out.shape, out.rank};
  Status s = CheckInput<Given::kShapesAndDTypes>(op, name, view, &count);
  if (s.ok()) s = CheckData(op, name, view);
  if (!s.ok()) return s;
  const int64_t bytes = count * static_cast<int64_t>(DTypeSize(out.dtype));
  for (const Input& in : inputs) {
    const int64_t in_bytes = in.count * static_cast<int64_t>(DTypeSize(in.view.dtype));
    if (Overlaps(out.data, bytes, in.view.data, in_bytes)) {
      return Invalid(
          op, std::string(name) + ": output memory overlaps an input; give it its own buffer");
    }
  }
  return Status::Ok();
}

Status CheckOutputSize(const char* op, const char* an_axis, const TensorView& x, int64_t x_count,
                       const int64_t* y_shape, size_t elem_size) {
  int64_t y_count = 0;
  Status s = CountElements(op, "Y", y_shape, x.rank, elem_size, &y_count);
  if (!s.ok()) return s;
  if (y_count > 0 && x_count == 0) {
    return Invalid(op, std::string("X: ") + an_axis + " is 0 in shape " +
                           ShapeString(x.shape, x.rank) + " but the output " +
                           ShapeString(y_shape, x.rank) + " asks for samples from it");
  }
  return Status::Ok();
}

Status ValidateGridSampleOptions(const GridSampleOptions& options, const char* op) {
  const int mode = static_cast<int>(options.mode);
  const int padding = static_cast<int>(options.padding);
  if (mode < 0 || mode > static_cast<int>(Mode::kCubic)) {
    return Invalid(
        op, "mode: expected Mode::kLinear, kNearest or kCubic, got value " + std::to_string(mode));
  }
  if (padding < 0 || padding > static_cast<int>(Padding::kReflection)) {
    return Invalid(op, "padding: expected Padding::kZeros, kBorder or kReflection, got value " +
                           std::to_string(padding));
  }
  return ValidateThreads(options.threads, op);
}

Status ValidateThreads(const Threads& threads, const char* op) {
  if (threads.count < 0) {
    return Invalid(op, "threads.count: expected 0 (one per hardware thread) or more, got " +
                           std::to_string(threads.count));
  }
  if (threads.parallel_for == nullptr && threads.host != nullptr) {
    return Invalid(op, "threads.host is set without threads.parallel_for");
  }
  return Status::Ok();
}

Status ValidateFill(const GridSampleOptions& options, const double* fill, DType x, int64_t channels,
                    const char* op) {
  if (fill == nullptr) return Status::Ok();
  if (options.padding != Padding::kZeros) {
    return Invalid(op, std::string("fill: applies to zeros padding only, got padding ") +
                           PaddingName(options.padding));
  }
  // X's compute type holds every value (in float, no infinity times a zero weight).
  const bool f64 = ComputesInDouble(x);
  const double limit = f64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
  for (int64_t c = 0; c < channels; ++c) {
    if (!(std::abs(fill[c]) <= limit)) {
      // Named, not formatted: printf's float formatting would add 26 KB to the wasm.
      const char* value = std::isnan(fill[c])   ? "NaN"
                          : std::isinf(fill[c]) ? (fill[c] > 0 ? "inf" : "-inf")
                                                : "a value beyond 3.4e38";
      return Invalid(op, std::string("fill: expected finite values") +
                             (f64 ? "" : " within float32's range") + ", got " + value +
                             " for channel " + std::to_string(c));
    }
  }
  return Status::Ok();
}

Status ValidateOutputRows(const char* op, const OutputRows& rows, ChannelsLastGeometry* geometry) {
  if (rows.height < 0 || rows.begin < 0 || rows.begin > rows.height - geometry->rows) {
    return Invalid(op, "rows: expected Y's " + std::to_string(geometry->rows) +
                           " rows to lie within the output, got rows " +
                           std::to_string(rows.begin) + " onwards of an output " +
                           std::to_string(rows.height) + " rows high");
  }
  geometry->out_h = rows.height;
  geometry->row0 = rows.begin;
  return Status::Ok();
}

}  // namespace gridsample
