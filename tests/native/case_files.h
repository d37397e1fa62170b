// The files of a golden case: the format's element types, its .bin arrays and whole files.
#ifndef GRIDSAMPLE_TESTS_NATIVE_CASE_FILES_H_
#define GRIDSAMPLE_TESTS_NATIVE_CASE_FILES_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "case_loader.h"
#include "gridsample/types.h"

namespace gridsample {
namespace conformance {

using Json = nlohmann::json;

struct FileDTypeInfo {
  const char* name;
  FileDType file_dtype;
  size_t size;
  bool is_integer;
  bool library_type;  // whether gridsample::DType has it
  DType dtype;        // meaningful only when library_type
};

// Facts of a file dtype (its entry of the format's table).
const FileDTypeInfo& Info(FileDType t);

// Element i of a dense array of `dtype` at `base`, as a double (case_files.cc).
double Decode(FileDType dtype, const void* base, size_t i);

// "[2, 3]": a shape in messages.
std::string ShapeString(const std::vector<int64_t>& shape);

// The bytes of a whole file; false and `error` when it cannot be read.
bool ReadWholeFile(const std::filesystem::path& path, std::string* bytes, std::string* error);

// Reads the tensor described by {"file", "shape", "dtype"} from `dir` (`label` names it in
// errors).
bool ParseTensor(const Json& spec, const std::filesystem::path& dir, const std::string& label,
                 Tensor* t, std::string* error);

}  // namespace conformance
}  // namespace gridsample

#endif  // GRIDSAMPLE_TESTS_NATIVE_CASE_FILES_H_
