// Reads the files of a golden case: the format's element types, its .bin arrays, whole files.
#include "case_files.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "rules/half.h"

namespace gridsample {
namespace conformance {
namespace {

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

bool HostIsLittleEndian() {
  const uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
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

}  // namespace

const FileDTypeInfo& Info(FileDType t) {
  for (const FileDTypeInfo& info : kFileDTypes) {
    if (info.file_dtype == t) return info;
  }
  return kFileDTypes[0];  // unreachable: every enumerator is in the table
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

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
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

double Tensor::At(size_t i) const { return Decode(dtype, storage.data(), i); }

}  // namespace conformance
}  // namespace gridsample
