// Loads golden cases (tests/cases format) and replays them through GridSample / AffineGrid.
#ifndef GRIDSAMPLE_TESTS_NATIVE_CASE_LOADER_H_
#define GRIDSAMPLE_TESTS_NATIVE_CASE_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/types.h"

namespace gridsample {
namespace conformance {

// Element types a case file may name. Wider than gridsample::DType because `size`
// is int64, which the library never takes as a tensor.
enum class FileDType : int {
  kFloat32 = 0,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt64,
  kUint8,
  kInt8,
  kInt16,
  kUint16,
  kInt32,
  kUint32,
};

// One array read from a .bin file. The storage is 8-byte words so that float64 and
// int64 data are naturally aligned whatever the element type.
struct Tensor {
  std::string name;  // "X", "grid", "theta", "size" or "expected"
  FileDType dtype = FileDType::kFloat32;
  std::vector<int64_t> shape;
  size_t element_count = 0;
  std::vector<uint64_t> storage;

  // Null for an empty tensor: the library must accept that (types.h) and a null
  // pointer is the strictest way to check it never dereferences one.
  const void* data() const { return element_count == 0 ? nullptr : storage.data(); }
  // Element i as a double (float16 / bfloat16 decoded, integers as numbers).
  double At(size_t i) const;
};

// A parsed case, ready to replay as often as needed.
struct Case {
  std::string dir;
  std::string name;
  std::string op;        // "GridSample" or "AffineGrid"
  std::string category;  // "" when the file has none
  GridSampleOptions grid_sample_options;
  AffineGridOptions affine_grid_options;
  // GridSample: x, grid. AffineGrid: theta and the size vector.
  Tensor x;
  Tensor grid;
  Tensor theta;
  std::vector<int64_t> size;
  Tensor expected;
  double atol = 0.0;
  // "check": "range_only": every output finite and inside
  // [range_lo[n][c] - range_atol, range_hi[n][c] + range_atol].
  bool range_only = false;
  std::vector<std::vector<double>> range_lo;
  std::vector<std::vector<double>> range_hi;
  double range_atol = 0.0;
};

// The calls a case is replayed through; same signatures as the public API so that
// the dispatching fast paths and the scalar reference are interchangeable.
using GridSampleFn =
    std::function<Status(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                         const GridSampleOptions& options)>;
using AffineGridFn =
    std::function<Status(const TensorView& theta, const int64_t* size, size_t size_len,
                         const MutableTensorView& grid, const AffineGridOptions& options)>;

struct Implementation {
  std::string name;
  GridSampleFn grid_sample;
  AffineGridFn affine_grid;
};

// gridsample::GridSample / AffineGrid (dispatching to the active SIMD target).
Implementation PublicImplementation();
// gridsample::reference::GridSample / AffineGrid (scalar oracle).
Implementation ReferenceImplementation();

// What happened to one case. A case that could not be loaded or run (bad file,
// unsupported dtype / op / attribute, error status) has passed == false and a
// non-empty `error`: it is a failure, never a skip.
struct CaseResult {
  bool passed = false;
  std::string name;
  std::string category;
  std::string implementation;
  std::string error;  // why the case could not be run or compared
  bool range_only = false;
  int64_t worst_flat_index = -1;  // -1 when no element was compared
  std::vector<int64_t> worst_index;
  double got = 0.0;
  double expected = 0.0;  // range_only: the bound that is nearest / violated
  double range_lo = 0.0;  // range_only: the allowed interval at the worst element
  double range_hi = 0.0;
  double max_abs_error = 0.0;  // range_only: distance outside the interval
  double atol = 0.0;
  size_t element_count = 0;
};

// Case names in `dir`: every *.json except index.json, without the extension,
// sorted. Returns false and sets `error` when the directory cannot be read.
bool ListCases(const std::string& dir, std::vector<std::string>* names, std::string* error);

// Reads <dir>/<name>.json and its .bin files. Returns false and sets `error` on any
// problem (missing file, size mismatch, unsupported dtype, op or attribute).
bool LoadCase(const std::string& dir, const std::string& name, Case* out, std::string* error);

// Replays a loaded case through `impl` and applies the pass criterion.
CaseResult RunCase(const Case& c, const Implementation& impl);

// LoadCase + RunCase; a load error becomes a failed result.
CaseResult LoadAndRunCase(const std::string& dir, const std::string& name,
                          const Implementation& impl);

// One line: name, category, worst index, got, expected, abs error, atol (or the error).
std::string DescribeResult(const CaseResult& r);

}  // namespace conformance
}  // namespace gridsample

#endif  // GRIDSAMPLE_TESTS_NATIVE_CASE_LOADER_H_
