// Loads golden cases (tests/cases format) and replays them through GridSample / AffineGrid.
#include "case_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "reference/reference.h"
#include "rules/half.h"

namespace gridsample {
namespace conformance {
namespace {

using Json = nlohmann::json;

struct FileDTypeInfo {
  const char* name;
  FileDType file_dtype;
  size_t size;
  bool is_integer;
  bool library_type;  // whether gridsample::DType has it
  DType dtype;        // meaningful only when library_type
};

// Every dtype the case format names (conformance README); int64 appears only as
// AffineGrid's size, which the library takes as a plain int64_t array.
constexpr FileDTypeInfo kFileDTypes[] = {
    {"float32", FileDType::kFloat32, 4, false, true, DType::kFloat32},
    {"float64", FileDType::kFloat64, 8, false, true, DType::kFloat64},
    {"float16", FileDType::kFloat16, 2, false, true, DType::kFloat16},
    {"bfloat16", FileDType::kBFloat16, 2, false, true, DType::kBFloat16},
    {"int64", FileDType::kInt64, 8, true, false, DType::kFloat32},
    {"uint8", FileDType::kUint8, 1, true, true, DType::kUint8},
    {"int8", FileDType::kInt8, 1, true, true, DType::kInt8},
    {"int16", FileDType::kInt16, 2, true, true, DType::kInt16},
    {"uint16", FileDType::kUint16, 2, true, true, DType::kUint16},
    {"int32", FileDType::kInt32, 4, true, true, DType::kInt32},
    {"uint32", FileDType::kUint32, 4, true, true, DType::kUint32},
};

const FileDTypeInfo& Info(FileDType t) {
  for (const FileDTypeInfo& info : kFileDTypes) {
    if (info.file_dtype == t) return info;
  }
  return kFileDTypes[0];  // unreachable: every enumerator is in the table
}

const FileDTypeInfo* FindDType(const std::string& name) {
  for (const FileDTypeInfo& info : kFileDTypes) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

template <typename T>
T LoadAs(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Element i of a dense array of `dtype` at `base`, as a double. Goes through memcpy
// so that no alignment or aliasing assumption is made about the buffer.
double Decode(FileDType dtype, const void* base, size_t i) {
  const unsigned char* p = static_cast<const unsigned char*>(base) + i * Info(dtype).size;
  switch (dtype) {
    case FileDType::kFloat32: return LoadAs<float>(p);
    case FileDType::kFloat64: return LoadAs<double>(p);
    case FileDType::kFloat16: return HalfToFloat(LoadAs<uint16_t>(p));
    case FileDType::kBFloat16: return BFloat16ToFloat(LoadAs<uint16_t>(p));
    case FileDType::kInt64: return static_cast<double>(LoadAs<int64_t>(p));
    case FileDType::kUint8: return LoadAs<uint8_t>(p);
    case FileDType::kInt8: return LoadAs<int8_t>(p);
    case FileDType::kInt16: return LoadAs<int16_t>(p);
    case FileDType::kUint16: return LoadAs<uint16_t>(p);
    case FileDType::kInt32: return LoadAs<int32_t>(p);
    case FileDType::kUint32: return LoadAs<uint32_t>(p);
  }
  return std::nan("");
}

bool HostIsLittleEndian() {
  const uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

// Product of dims, false on a negative dim or when bytes would not fit in size_t.
bool CountElements(const std::vector<int64_t>& shape, size_t element_size, size_t* count) {
  size_t n = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) zero = true;
  }
  if (zero) {
    *count = 0;
    return true;
  }
  const size_t limit = std::numeric_limits<size_t>::max() / element_size;
  for (int64_t d : shape) {
    const size_t ud = static_cast<size_t>(d);
    if (n > limit / ud) return false;
    n *= ud;
  }
  *count = n;
  return true;
}

bool ReadWholeFile(const std::filesystem::path& path, std::string* bytes, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path.string();
    return false;
  }
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    *error = "cannot read " + path.string();
    return false;
  }
  return true;
}

bool ParseShape(const Json& j, std::vector<int64_t>* shape, std::string* error) {
  if (!j.is_array()) {
    *error = "shape is not an array";
    return false;
  }
  shape->clear();
  for (const Json& d : j) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      *error = "shape entry " + d.dump() + " is not a non-negative integer";
      return false;
    }
    shape->push_back(d.get<int64_t>());
  }
  return true;
}

// Reads the tensor described by {"file", "shape", "dtype"} from `dir`.
bool ParseTensor(const Json& spec, const std::filesystem::path& dir, const std::string& label,
                 Tensor* t, std::string* error) {
  t->name = label;
  if (!spec.is_object() || !spec.contains("file") || !spec.contains("shape") ||
      !spec.contains("dtype")) {
    *error = label + ": needs \"file\", \"shape\" and \"dtype\"";
    return false;
  }
  const std::string dtype_name = spec.at("dtype").get<std::string>();
  const FileDTypeInfo* info = FindDType(dtype_name);
  if (info == nullptr) {
    *error = label + ": unsupported dtype \"" + dtype_name + "\"";
    return false;
  }
  t->dtype = info->file_dtype;
  if (!ParseShape(spec.at("shape"), &t->shape, error)) {
    *error = label + ": " + *error;
    return false;
  }
  if (!CountElements(t->shape, info->size, &t->element_count)) {
    *error = label + ": shape " + ShapeString(t->shape) + " is too large";
    return false;
  }
  const std::filesystem::path path = dir / spec.at("file").get<std::string>();
  std::string bytes;
  if (!ReadWholeFile(path, &bytes, error)) {
    *error = label + ": " + *error;
    return false;
  }
  const size_t want = t->element_count * info->size;
  if (bytes.size() != want) {
    *error = label + ": " + path.string() + " has " + std::to_string(bytes.size()) +
             " bytes, shape " + ShapeString(t->shape) + " of " + dtype_name + " needs " +
             std::to_string(want);
    return false;
  }
  // The files are little-endian; swap each element on a big-endian host.
  if (!HostIsLittleEndian() && info->size > 1) {
    for (size_t i = 0; i < want; i += info->size) {
      std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(i),
                   bytes.begin() + static_cast<std::ptrdiff_t>(i + info->size));
    }
  }
  t->storage.assign((want + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
  if (want) std::memcpy(t->storage.data(), bytes.data(), want);
  return true;
}

bool LibraryDType(const Tensor& t, DType* dtype, std::string* error) {
  const FileDTypeInfo& info = Info(t.dtype);
  if (!info.library_type) {
    *error = t.name + ": dtype " + info.name + " is not a gridsample element type";
    return false;
  }
  *dtype = info.dtype;
  return true;
}

bool ParseAlignCorners(const Json& j, bool* align, std::string* error) {
  if (j.is_boolean()) {
    *align = j.get<bool>();
    return true;
  }
  if (j.is_number_integer() && (j.get<int64_t>() == 0 || j.get<int64_t>() == 1)) {
    *align = j.get<int64_t>() == 1;
    return true;
  }
  *error = "unsupported attribute align_corners=" + j.dump() + " (want 0 or 1)";
  return false;
}

bool ParseRangeTable(const Json& j, const char* what, int64_t n, int64_t c,
                     std::vector<std::vector<double>>* table, std::string* error) {
  const std::string want = "[" + std::to_string(n) + "][" + std::to_string(c) + "]";
  if (!j.is_array() || static_cast<int64_t>(j.size()) != n) {
    *error = std::string("range.") + what + " is not a " + want + " table";
    return false;
  }
  table->clear();
  for (const Json& row : j) {
    if (!row.is_array() || static_cast<int64_t>(row.size()) != c) {
      *error = std::string("range.") + what + " is not a " + want + " table";
      return false;
    }
    std::vector<double> values;
    for (const Json& v : row) {
      if (!v.is_number()) {
        *error = std::string("range.") + what + " holds a non-number " + v.dump();
        return false;
      }
      values.push_back(v.get<double>());
    }
    table->push_back(std::move(values));
  }
  return true;
}

bool LoadCaseJson(const Json& j, const std::filesystem::path& dir, const std::string& name, Case* c,
                  std::string* error) {
  if (!j.is_object()) {
    *error = "case file is not a JSON object";
    return false;
  }
  if (j.contains("name") && j.at("name").get<std::string>() != name) {
    *error = "\"name\" is \"" + j.at("name").get<std::string>() + "\", file is " + name + ".json";
    return false;
  }
  if (j.contains("category")) c->category = j.at("category").get<std::string>();
  if (!j.contains("op")) {
    *error = "no \"op\"";
    return false;
  }
  c->op = j.at("op").get<std::string>();
  if (c->op != "GridSample" && c->op != "AffineGrid") {
    *error = "unsupported op \"" + c->op + "\"";
    return false;
  }
  // Cases written for other semantics (e.g. the ONNX evaluator's cubic + border)
  // would be judged against answers this library deliberately does not give.
  if (j.contains("semantics") && j.at("semantics").get<std::string>() != "gridsample") {
    *error = "unsupported semantics \"" + j.at("semantics").get<std::string>() + "\"";
    return false;
  }

  // Attributes, ONNX defaults when absent; anything unknown is refused rather than ignored.
  const Json attrs = j.value("attrs", Json::object());
  for (auto it = attrs.begin(); it != attrs.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "align_corners") {
      bool align = false;
      if (!ParseAlignCorners(v, &align, error)) return false;
      c->grid_sample_options.align_corners = align;
      c->affine_grid_options.align_corners = align;
    } else if (c->op == "GridSample" && key == "mode") {
      const Status s = ParseMode(v.get<std::string>(), &c->grid_sample_options.mode);
      if (!s.ok()) {
        *error = "unsupported attribute mode=" + v.dump() + ": " + s.message();
        return false;
      }
    } else if (c->op == "GridSample" && key == "padding_mode") {
      const Status s = ParsePadding(v.get<std::string>(), &c->grid_sample_options.padding);
      if (!s.ok()) {
        *error = "unsupported attribute padding_mode=" + v.dump() + ": " + s.message();
        return false;
      }
    } else {
      *error = "unsupported attribute " + key + "=" + v.dump() + " for " + c->op;
      return false;
    }
  }
  // The opset-16 spelling (bilinear / bicubic) must name the same mode.
  if (c->op == "GridSample" && j.contains("mode_opset16") && j.at("mode_opset16").is_string()) {
    const std::string spelling = j.at("mode_opset16").get<std::string>();
    Mode mode16 = Mode::kLinear;
    const Status s = ParseMode(spelling, &mode16);
    if (!s.ok() || mode16 != c->grid_sample_options.mode) {
      *error = "mode_opset16 \"" + spelling + "\" does not parse to " +
               ModeName(c->grid_sample_options.mode) + (s.ok() ? "" : ": " + s.message());
      return false;
    }
  }

  if (!j.contains("inputs") || !j.at("inputs").is_object()) {
    *error = "no \"inputs\" object";
    return false;
  }
  const Json& inputs = j.at("inputs");
  for (auto it = inputs.begin(); it != inputs.end(); ++it) {
    const bool known = c->op == "GridSample" ? (it.key() == "X" || it.key() == "grid")
                                             : (it.key() == "theta" || it.key() == "size");
    if (!known) {
      *error = "unsupported input \"" + it.key() + "\" for " + c->op;
      return false;
    }
  }
  DType out_dtype = DType::kFloat32;
  if (c->op == "GridSample") {
    if (!inputs.contains("X") || !inputs.contains("grid")) {
      *error = "GridSample needs inputs X and grid";
      return false;
    }
    DType grid_dtype = DType::kFloat32;
    if (!ParseTensor(inputs.at("X"), dir, "X", &c->x, error) ||
        !ParseTensor(inputs.at("grid"), dir, "grid", &c->grid, error) ||
        !LibraryDType(c->x, &out_dtype, error) || !LibraryDType(c->grid, &grid_dtype, error)) {
      return false;
    }
  } else {
    if (!inputs.contains("theta") || !inputs.contains("size")) {
      *error = "AffineGrid needs inputs theta and size";
      return false;
    }
    Tensor size;
    if (!ParseTensor(inputs.at("theta"), dir, "theta", &c->theta, error) ||
        !ParseTensor(inputs.at("size"), dir, "size", &size, error) ||
        !LibraryDType(c->theta, &out_dtype, error)) {
      return false;
    }
    if (!Info(size.dtype).is_integer || size.shape.size() != 1) {
      *error = "size: want a 1-D integer tensor, got " + std::string(Info(size.dtype).name) + " " +
               ShapeString(size.shape);
      return false;
    }
    c->size.clear();
    for (size_t i = 0; i < size.element_count; ++i) {
      c->size.push_back(static_cast<int64_t>(size.At(i)));
    }
    // The inline copy is what a human reads; it must not disagree with the file.
    const Json& size_spec = inputs.at("size");
    if (size_spec.contains("value") &&
        size_spec.at("value").get<std::vector<int64_t>>() != c->size) {
      *error = "size: size.bin holds " + ShapeString(c->size) + ", inputs.size.value says " +
               size_spec.at("value").dump();
      return false;
    }
  }

  if (!j.contains("expected") ||
      !ParseTensor(j.at("expected"), dir, "expected", &c->expected, error)) {
    if (error->empty()) *error = "no \"expected\"";
    return false;
  }
  DType expected_dtype = DType::kFloat32;
  if (!LibraryDType(c->expected, &expected_dtype, error)) return false;
  if (expected_dtype != out_dtype) {
    *error = std::string("expected: dtype ") + DTypeName(expected_dtype) + ", but the output of " +
             c->op + " has the input's dtype " + DTypeName(out_dtype);
    return false;
  }

  if (!j.contains("tolerance") || !j.at("tolerance").contains("atol")) {
    *error = "no tolerance.atol";
    return false;
  }
  const Json& tol = j.at("tolerance");
  c->atol = tol.at("atol").get<double>();
  if (!(c->atol >= 0.0)) {
    *error = "tolerance.atol " + tol.at("atol").dump() + " is not >= 0";
    return false;
  }
  // The README fixes rtol at 0; a case that needs another rule must not be judged by this one.
  if (tol.contains("rtol") && tol.at("rtol").get<double>() != 0.0) {
    *error = "unsupported tolerance.rtol " + tol.at("rtol").dump() + " (only 0)";
    return false;
  }

  if (j.contains("check")) {
    const std::string check = j.at("check").get<std::string>();
    if (check != "range_only") {
      *error = "unsupported check \"" + check + "\"";
      return false;
    }
    if (c->op != "GridSample" || c->expected.shape.size() < 2) {
      *error = "check range_only needs a GridSample output (N, C, ...)";
      return false;
    }
    if (!j.contains("range")) {
      *error = "check range_only without \"range\"";
      return false;
    }
    const Json& range = j.at("range");
    if (range.contains("per") && range.at("per").get<std::string>() != "batch_channel") {
      *error = "unsupported range.per \"" + range.at("per").get<std::string>() + "\"";
      return false;
    }
    const int64_t n = c->expected.shape[0];
    const int64_t ch = c->expected.shape[1];
    if (!range.contains("lo") || !range.contains("hi") || !range.contains("atol") ||
        !ParseRangeTable(range.at("lo"), "lo", n, ch, &c->range_lo, error) ||
        !ParseRangeTable(range.at("hi"), "hi", n, ch, &c->range_hi, error)) {
      if (error->empty()) *error = "range needs lo, hi and atol";
      return false;
    }
    c->range_atol = range.at("atol").get<double>();
    if (!(c->range_atol >= 0.0)) {
      *error = "range.atol is not >= 0";
      return false;
    }
    c->range_only = true;
  }
  return true;
}

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

double Tensor::At(size_t i) const { return Decode(dtype, storage.data(), i); }

Implementation PublicImplementation() {
  return {"public", &gridsample::GridSample, &gridsample::AffineGrid};
}

Implementation ReferenceImplementation() {
  return {"reference", &gridsample::reference::GridSample, &gridsample::reference::AffineGrid};
}

bool ListCases(const std::string& dir, std::vector<std::string>* names, std::string* error) {
  names->clear();
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    *error = "cannot read case directory " + dir + ": " + ec.message();
    return false;
  }
  const std::filesystem::directory_iterator end;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::filesystem::path& p = it->path();
    if (p.extension() != ".json" || p.filename() == "index.json") continue;
    names->push_back(p.stem().string());
  }
  if (ec) {
    *error = "error while listing " + dir + ": " + ec.message();
    return false;
  }
  std::sort(names->begin(), names->end());
  return true;
}

bool LoadCase(const std::string& dir, const std::string& name, Case* out, std::string* error) {
  *out = Case();
  out->dir = dir;
  out->name = name;
  error->clear();
  const std::filesystem::path json_path = std::filesystem::path(dir) / (name + ".json");
  std::string text;
  if (!ReadWholeFile(json_path, &text, error)) return false;
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    *error = json_path.string() + " is not valid JSON";
    return false;
  }
  if (j.is_object() && j.contains("category") && j.at("category").is_string()) {
    out->category = j.at("category").get<std::string>();
  }
  try {
    // Type errors (a string where a number belongs, ...) surface as exceptions.
    return LoadCaseJson(j, std::filesystem::path(dir), name, out, error);
  } catch (const nlohmann::json::exception& e) {
    *error = std::string("malformed case: ") + e.what();
    return false;
  }
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
