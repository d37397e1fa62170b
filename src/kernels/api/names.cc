// Names, sizes and string parsing for the public enums of gridsample.
#include <string>

#include "gridsample/types.h"

namespace gridsample {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::kFloat32, "float32", 4}, {DType::kFloat64, "float64", 8},
    {DType::kFloat16, "float16", 2}, {DType::kBFloat16, "bfloat16", 2},
    {DType::kInt8, "int8", 1},       {DType::kUint8, "uint8", 1},
    {DType::kInt16, "int16", 2},     {DType::kUint16, "uint16", 2},
    {DType::kInt32, "int32", 4},     {DType::kUint32, "uint32", 4},
};

const DTypeInfo* FindDType(DType dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

size_t DTypeSize(DType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info ? info->size : 0;
}

const char* DTypeName(DType dtype) {
  const DTypeInfo* info = FindDType(dtype);
  return info ? info->name : "unknown";
}

Status ParseDType(std::string_view name, DType* dtype, std::string_view what) {
  for (const DTypeInfo& info : kDTypes) {
    if (name == info.name) {
      *dtype = info.dtype;
      return Status::Ok();
    }
  }
  return Status::InvalidArgument(
      std::string(what) +
      ": expected one of float32, float64, float16, bfloat16, int8, uint8, int16, uint16, "
      "int32, uint32, got " +
      Quoted(name));
}

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kLinear: return "linear";
    case Mode::kNearest: return "nearest";
    case Mode::kCubic: return "cubic";
  }
  return "unknown";
}

const char* PaddingName(Padding padding) {
  switch (padding) {
    case Padding::kZeros: return "zeros";
    case Padding::kBorder: return "border";
    case Padding::kReflection: return "reflection";
  }
  return "unknown";
}

Status ParseMode(std::string_view name, Mode* mode) {
  if (name == "linear" || name == "bilinear") {
    *mode = Mode::kLinear;
  } else if (name == "nearest") {
    *mode = Mode::kNearest;
  } else if (name == "cubic" || name == "bicubic") {
    *mode = Mode::kCubic;
  } else {
    return Status::InvalidArgument(
        "mode: expected 'linear', 'bilinear', 'nearest', 'cubic' or 'bicubic', got " +
        Quoted(name));
  }
  return Status::Ok();
}

Status ParsePadding(std::string_view name, Padding* padding) {
  if (name == "zeros") {
    *padding = Padding::kZeros;
  } else if (name == "border") {
    *padding = Padding::kBorder;
  } else if (name == "reflection") {
    *padding = Padding::kReflection;
  } else {
    return Status::InvalidArgument(
        "padding_mode: expected 'zeros', 'border' or 'reflection', got " + Quoted(name));
  }
  return Status::Ok();
}

}  // namespace gridsample
