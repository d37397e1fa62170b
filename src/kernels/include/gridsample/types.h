// Shared public vocabulary of gridsample: element types, modes, paddings, tensor views, status.
#ifndef GRIDSAMPLE_TYPES_H_
#define GRIDSAMPLE_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gridsample {

// Most spatial axes a tensor may have (GridSample's r, AffineGrid uses 2 or 3).
// Fixed so that kernels keep per-axis state on the stack and never allocate.
inline constexpr int kMaxSpatialRank = 8;

// Element types of X and Y. float16 and bfloat16 are raw 16-bit patterns.
enum class DType : int {
  kFloat32 = 0,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt8,
  kUint8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
};

// Interpolation mode (ONNX: "linear"/"bilinear", "nearest", "cubic"/"bicubic").
enum class Mode : int { kLinear = 0, kNearest, kCubic };

// Padding mode (ONNX: "zeros", "border", "reflection").
enum class Padding : int { kZeros = 0, kBorder, kReflection };

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,  // wrong shape, rank, dtype, option or null pointer
  kOutOfRange,       // a size whose element or byte count overflows
};

// The result of every public call. Never thrown: errors are values.
class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status OutOfRange(std::string message) {
    return Status(StatusCode::kOutOfRange, std::move(message));
  }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A read-only tensor: dense, row-major (C order), `rank` dims in `shape`.
// `data` may be null only when the tensor has no elements.
struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  const int64_t* shape = nullptr;
  size_t rank = 0;
};

// A writable tensor, same conventions as TensorView.
struct MutableTensorView {
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  const int64_t* shape = nullptr;
  size_t rank = 0;
};

// Size in bytes of one element of `dtype` (0 for a value outside the enum).
size_t DTypeSize(DType dtype);
// "float32", "uint8", ... ("unknown" outside the enum).
const char* DTypeName(DType dtype);
// Accepts the names DTypeName returns; InvalidArgument naming `what` otherwise.
Status ParseDType(std::string_view name, DType* dtype, std::string_view what = "dtype");

const char* ModeName(Mode mode);           // "linear", "nearest", "cubic"
const char* PaddingName(Padding padding);  // "zeros", "border", "reflection"
// Both ONNX spellings: linear|bilinear, nearest, cubic|bicubic.
Status ParseMode(std::string_view name, Mode* mode);
// zeros|border|reflection.
Status ParsePadding(std::string_view name, Padding* padding);

// The SIMD target the fast paths run on in this process ("scalar" when only the
// reference is compiled in).
const char* ActiveTarget();

// The SIMD targets the fast paths can run on in this process: compiled in and supported by
// this CPU, best first ("AVX3", "AVX2", "SSE4", "SSSE3", "EMU128"; one name on wasm and
// cross-compiled builds).
std::vector<std::string> AvailableTargets();

// Makes every fast path run on `name`, one of AvailableTargets(), or on the default choice
// (the best available target) when `name` is empty; InvalidArgument listing the available
// targets otherwise. For benchmarks and tests that compare targets: it sets process-wide
// state, so call it while no other gridsample call runs.
Status SetTarget(std::string_view name);

}  // namespace gridsample

#endif  // GRIDSAMPLE_TYPES_H_
