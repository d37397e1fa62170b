// Loads golden cases (tests/cases format): a case's JSON and arrays into a Case; the case list.
#include "case_loader.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "case_files.h"

namespace gridsample {
namespace conformance {
namespace {

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

}  // namespace

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

}  // namespace conformance
}  // namespace gridsample
