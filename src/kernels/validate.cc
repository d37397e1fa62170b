// Argument validation for GridSample and AffineGrid; every message names the argument,
// the expectation and what was given.
#include "validate.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dtype_traits.h"

namespace gridsample {
namespace {

std::string ShapeString(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Status Invalid(const char* op, const std::string& what) {
  return Status::InvalidArgument(std::string(op) + ": " + what);
}

// Most bytes one tensor may span: a pointer difference must stay representable.
constexpr uint64_t kMaxBytes = static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max()) <
                                       static_cast<uint64_t>(std::numeric_limits<size_t>::max())
                                   ? static_cast<uint64_t>(std::numeric_limits<ptrdiff_t>::max())
                                   : static_cast<uint64_t>(std::numeric_limits<size_t>::max());

// Product of `dims` with overflow checks against int64 and the address space.
// Zero dims count as 1 for the check, so that every partial product (strides,
// per-axis counts) of even an empty tensor fits in int64.
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

std::string DTypeString(DType dtype) {
  return DTypeSize(dtype) ? DTypeName(dtype)
                          : "unknown dtype value " + std::to_string(static_cast<int>(dtype));
}

// Shape pointer present, dims >= 0; element count without overflow; unless
// `shapes_only`, also a known dtype and a data pointer for a non-empty tensor.
Status CheckTensor(const char* op, const char* name, const void* data, DType dtype,
                   const int64_t* shape, size_t rank, int64_t* count, bool shapes_only = false) {
  if (rank > 0 && shape == nullptr) {
    return Invalid(op,
                   std::string(name) + ": shape pointer is null for rank " + std::to_string(rank));
  }
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return Invalid(op, std::string(name) + ": dimension " + std::to_string(i) +
                             " must be >= 0, got " + std::to_string(shape[i]) + " in shape " +
                             ShapeString(shape, rank));
    }
  }
  const size_t elem_size = shapes_only ? 1 : DTypeSize(dtype);
  if (elem_size == 0) return Invalid(op, std::string(name) + ": " + DTypeString(dtype));
  Status s = CountElements(op, name, shape, rank, elem_size, count);
  if (!s.ok()) return s;
  if (!shapes_only && *count > 0 && data == nullptr) {
    return Invalid(op, std::string(name) + ": data pointer is null for a tensor of shape " +
                           ShapeString(shape, rank));
  }
  return Status::Ok();
}

bool Overlaps(const void* a, int64_t a_bytes, const void* b, int64_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const uintptr_t pa = reinterpret_cast<uintptr_t>(a);
  const uintptr_t pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + static_cast<uintptr_t>(b_bytes) && pb < pa + static_cast<uintptr_t>(a_bytes);
}

// The output tensor matches the expected shape and dtype and overlaps no input.
Status CheckOutput(const char* op, const char* name, const MutableTensorView& out, DType want_dtype,
                   const int64_t* want_shape, size_t want_rank, const TensorView* inputs,
                   size_t num_inputs, const int64_t* input_counts) {
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
  Status s = CheckTensor(op, name, out.data, out.dtype, out.shape, out.rank, &count);
  if (!s.ok()) return s;
  const int64_t bytes = count * static_cast<int64_t>(DTypeSize(out.dtype));
  for (size_t i = 0; i < num_inputs; ++i) {
    const int64_t in_bytes = input_counts[i] * static_cast<int64_t>(DTypeSize(inputs[i].dtype));
    if (Overlaps(out.data, bytes, inputs[i].data, in_bytes)) {
      return Invalid(
          op, std::string(name) + ": output memory overlaps an input; give it its own buffer");
    }
  }
  return Status::Ok();
}

// GridSample's layout of X, or of the grid, for `r` spatial axes: "[N, C, H, W]", "[N, Ho, Wo, 2]".
std::string GridSampleLayout(int r, bool grid) {
  static const char* const kX[4] = {"", "W", "H, W", "D, H, W"};
  static const char* const kGrid[4] = {"", "Wo", "Ho, Wo", "Do, Ho, Wo"};
  const std::string axes =
      r <= 3 ? (grid ? kGrid : kX)[r] : (grid ? "O1..O" : "D1..D") + std::to_string(r);
  return grid ? "[N, " + axes + ", " + std::to_string(r) + "]" : "[N, C, " + axes + "]";
}

// The error for a grid whose rank or last dimension does not fit X (X's shape is checked):
// what X's shape implies, and, for a consistent grid of another rank, the X it would fit
// (e.g. an image given without its channel axis); the JS package shows this message too.
Status GridShapeError(const char* op, const TensorView& x, const TensorView& grid) {
  const int r = static_cast<int>(x.rank) - 2;
  const bool shown = grid.shape != nullptr && grid.rank >= 1 && grid.rank <= 2 + kMaxSpatialRank;
  std::string text =
      "X has shape " + ShapeString(x.shape, x.rank) + ", " + std::to_string(r) +
      (r == 1 ? " spatial axis " : " spatial axes ") + GridSampleLayout(r, false) +
      ", so grid must have rank " + std::to_string(r + 2) + " and last dimension " +
      std::to_string(r) + " (" + GridSampleLayout(r, true) + "); got grid " +
      (shown ? "shape " + ShapeString(grid.shape, grid.rank) +
                   (grid.rank != x.rank ? " (rank " + std::to_string(grid.rank) + ")" : "")
             : "rank " + std::to_string(grid.rank));
  const int g = static_cast<int>(grid.rank) - 2;
  if (shown && g >= 1 && g != r && grid.shape[grid.rank - 1] == g) {
    text += ", which samples X of shape " + GridSampleLayout(g, false);
    if (static_cast<int>(x.rank) == g + 1) {
      std::vector<int64_t> with_c(x.shape, x.shape + x.rank);
      with_c.insert(with_c.begin() + 1, 1);
      text += " (is X missing its channel axis? " + ShapeString(with_c.data(), with_c.size()) +
              " for one channel)";
    }
  }
  return Invalid(op, text);
}

}  // namespace

Status ValidateGridSample(const TensorView& x, const TensorView& grid, const MutableTensorView* y,
                          GridSampleGeometry* geometry, bool shapes_only) {
  constexpr const char* kOp = "GridSample";
  constexpr size_t kMaxRank = 2 + kMaxSpatialRank;
  if (x.rank < 3 || x.rank > kMaxRank) {
    return Invalid(kOp, "X: expected rank 3 to " + std::to_string(kMaxRank) +
                            " (N, C, D1..Dr), got rank " + std::to_string(x.rank) +
                            (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  int64_t x_count = 0;
  Status s = CheckTensor(kOp, "X", x.data, x.dtype, x.shape, x.rank, &x_count, shapes_only);
  if (!s.ok()) return s;
  const int r = static_cast<int>(x.rank) - 2;
  if (grid.rank != x.rank) return GridShapeError(kOp, x, grid);
  if (!shapes_only && !IsFloatDType(grid.dtype)) {
    return Invalid(kOp, "grid: expected dtype float32, float64, float16 or bfloat16, got " +
                            DTypeString(grid.dtype));
  }
  int64_t grid_count = 0;
  s = CheckTensor(kOp, "grid", grid.data, grid.dtype, grid.shape, grid.rank, &grid_count,
                  shapes_only);
  if (!s.ok()) return s;
  if (grid.shape[grid.rank - 1] != r) return GridShapeError(kOp, x, grid);
  if (grid.shape[0] != x.shape[0]) {
    return Invalid(kOp, "grid: expected batch size N = " + std::to_string(x.shape[0]) +
                            " (X's), got shape " + ShapeString(grid.shape, grid.rank));
  }

  int64_t y_shape[2 + kMaxSpatialRank];
  y_shape[0] = x.shape[0];
  y_shape[1] = x.shape[1];
  for (int a = 0; a < r; ++a) y_shape[2 + a] = grid.shape[1 + a];
  int64_t y_count = 0;
  s = CountElements(kOp, "Y", y_shape, x.rank, shapes_only ? 1 : DTypeSize(x.dtype), &y_count);
  if (!s.ok()) return s;
  if (y_count > 0 && x_count == 0) {
    return Invalid(kOp, "X: a spatial dimension is 0 in shape " + ShapeString(x.shape, x.rank) +
                            " but the output " + ShapeString(y_shape, x.rank) +
                            " asks for samples from it");
  }
  if (y) {
    const TensorView inputs[2] = {x, grid};
    const int64_t counts[2] = {x_count, grid_count};
    s = CheckOutput(kOp, "Y", *y, x.dtype, y_shape, x.rank, inputs, 2, counts);
    if (!s.ok()) return s;
  }

  geometry->rank = r;
  geometry->n = x.shape[0];
  geometry->c = x.shape[1];
  geometry->in_spatial = 1;
  geometry->out_spatial = 1;
  for (int a = 0; a < r; ++a) {
    geometry->in[a] = x.shape[2 + a];
    geometry->out[a] = grid.shape[1 + a];
    geometry->in_spatial *= geometry->in[a];
    geometry->out_spatial *= geometry->out[a];
  }
  return Status::Ok();
}

Status ValidateWarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                        GridSampleGeometry* geometry) {
  constexpr const char* kOp = "WarpFlow";
  if (x.rank != 4) {
    return Invalid(kOp, "X: expected rank 4 (N, C, H, W), got rank " + std::to_string(x.rank) +
                            (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  int64_t x_count = 0;
  Status s = CheckTensor(kOp, "X", x.data, x.dtype, x.shape, x.rank, &x_count);
  if (!s.ok()) return s;
  if (flow.dtype != DType::kFloat32) {
    return Invalid(kOp, "flow: expected dtype float32 (displacements in pixels), got " +
                            DTypeString(flow.dtype));
  }
  int64_t flow_count = 0;
  s = CheckTensor(kOp, "flow", flow.data, flow.dtype, flow.shape, flow.rank, &flow_count);
  if (!s.ok()) return s;
  if (flow.rank != 4 || flow.shape[1] != 2 || flow.shape[0] != x.shape[0]) {
    return Invalid(kOp, "flow: expected shape [" + std::to_string(x.shape[0]) +
                            ", 2, Ho, Wo] (dx and dy for X of shape " + ShapeString(x.shape, 4) +
                            "), got " + ShapeString(flow.shape, flow.rank));
  }
  const int64_t y_shape[4] = {x.shape[0], x.shape[1], flow.shape[2], flow.shape[3]};
  int64_t y_count = 0;
  s = CountElements(kOp, "Y", y_shape, 4, DTypeSize(x.dtype), &y_count);
  if (!s.ok()) return s;
  if (y_count > 0 && x_count == 0) {
    return Invalid(kOp, "X: a dimension is 0 in shape " + ShapeString(x.shape, 4) +
                            " but the output " + ShapeString(y_shape, 4) +
                            " asks for samples from it");
  }
  const TensorView inputs[2] = {x, flow};
  const int64_t counts[2] = {x_count, flow_count};
  s = CheckOutput(kOp, "Y", y, x.dtype, y_shape, 4, inputs, 2, counts);
  if (!s.ok()) return s;
  geometry->rank = 2;
  geometry->n = x.shape[0];
  geometry->c = x.shape[1];
  geometry->in[0] = x.shape[2];
  geometry->in[1] = x.shape[3];
  geometry->out[0] = flow.shape[2];
  geometry->out[1] = flow.shape[3];
  geometry->in_spatial = x.shape[2] * x.shape[3];
  geometry->out_spatial = flow.shape[2] * flow.shape[3];
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

Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView* grid, AffineGridGeometry* geometry) {
  constexpr const char* kOp = "AffineGrid";
  int64_t grid_shape[5];
  Status s = AffineGridOutputShape(size, size_len, grid_shape);  // checks size itself
  if (!s.ok()) return s;
  const int r = static_cast<int>(size_len) - 2;
  const int64_t want_theta[3] = {size[0], r, r + 1};
  if (!IsFloatDType(theta.dtype)) {
    return Invalid(kOp, "theta: expected dtype float32, float64, float16 or bfloat16, got " +
                            DTypeString(theta.dtype));
  }
  int64_t theta_count = 0;
  s = CheckTensor(kOp, "theta", theta.data, theta.dtype, theta.shape, theta.rank, &theta_count);
  if (!s.ok()) return s;
  bool theta_ok = theta.rank == 3;
  for (size_t i = 0; theta_ok && i < 3; ++i) theta_ok = theta.shape[i] == want_theta[i];
  if (!theta_ok) {
    return Invalid(kOp, "theta: expected shape " + ShapeString(want_theta, 3) + " for size " +
                            ShapeString(size, size_len) + ", got " +
                            ShapeString(theta.shape, theta.rank));
  }
  int64_t grid_count = 0;
  s = CountElements(kOp, "grid", grid_shape, size_len, DTypeSize(theta.dtype), &grid_count);
  if (!s.ok()) return s;
  if (grid) {
    const int64_t counts[1] = {theta_count};
    s = CheckOutput(kOp, "grid", *grid, theta.dtype, grid_shape, size_len, &theta, 1, counts);
    if (!s.ok()) return s;
  }
  geometry->rank = r;
  geometry->n = size[0];
  geometry->points = 1;
  for (int a = 0; a < r; ++a) {
    geometry->spatial[a] = size[2 + a];
    geometry->points *= size[2 + a];
  }
  return Status::Ok();
}

namespace {

// X of a channels-last call: rank 4 (N, H, W, C), a known dtype, data for its elements.
Status CheckChannelsLastX(const char* op, const TensorView& x, int64_t* x_count) {
  if (x.rank != 4) {
    return Invalid(op, "X: expected rank 4 (N, H, W, C), got rank " + std::to_string(x.rank) +
                           (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  return CheckTensor(op, "X", x.data, x.dtype, x.shape, x.rank, x_count);
}

// Y (N, Ho, Wo, C) against X: sizes fit, X is not empty when Y is not, Y is usable and
// overlaps neither X nor the other inputs (`others`, up to two, with their element counts).
Status CheckChannelsLastY(const char* op, const TensorView& x, int64_t x_count,
                          const int64_t* y_shape, const MutableTensorView& y,
                          std::initializer_list<std::pair<TensorView, int64_t>> others,
                          ChannelsLastGeometry* geometry) {
  int64_t y_count = 0;
  Status s = CountElements(op, "Y", y_shape, 4, DTypeSize(x.dtype), &y_count);
  if (!s.ok()) return s;
  if (y_count > 0 && x_count == 0) {
    return Invalid(op, "X: a dimension is 0 in shape " + ShapeString(x.shape, 4) +
                           " but the output " + ShapeString(y_shape, 4) +
                           " asks for samples from it");
  }
  TensorView inputs[3] = {x};
  int64_t counts[3] = {x_count};
  size_t num_inputs = 1;
  for (const auto& [view, count] : others) {
    inputs[num_inputs] = view;
    counts[num_inputs++] = count;
  }
  s = CheckOutput(op, "Y", y, x.dtype, y_shape, 4, inputs, num_inputs, counts);
  if (!s.ok()) return s;
  geometry->n = x.shape[0];
  geometry->in_h = x.shape[1];
  geometry->in_w = x.shape[2];
  geometry->c = x.shape[3];
  geometry->out_h = y_shape[1];
  geometry->out_w = y_shape[2];
  geometry->row0 = 0;
  geometry->rows = y_shape[1];
  return Status::Ok();
}

}  // namespace

Status ValidateGridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                                      const MutableTensorView& y, ChannelsLastGeometry* geometry) {
  constexpr const char* kOp = "GridSampleChannelsLast";
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(kOp, x, &x_count);
  if (!s.ok()) return s;
  if (!IsFloatDType(grid.dtype)) {
    return Invalid(kOp, "grid: expected dtype float32, float64, float16 or bfloat16, got " +
                            DTypeString(grid.dtype));
  }
  int64_t grid_count = 0;
  s = CheckTensor(kOp, "grid", grid.data, grid.dtype, grid.shape, grid.rank, &grid_count);
  if (!s.ok()) return s;
  if (grid.rank != 4 || grid.shape[3] != 2) {
    return Invalid(kOp, "grid: expected shape [N, Ho, Wo, 2] (rank 4), got " +
                            ShapeString(grid.shape, grid.rank));
  }
  if (grid.shape[0] != x.shape[0]) {
    return Invalid(kOp, "grid: expected batch size N = " + std::to_string(x.shape[0]) +
                            " (X's), got shape " + ShapeString(grid.shape, grid.rank));
  }
  const int64_t y_shape[4] = {x.shape[0], grid.shape[1], grid.shape[2], x.shape[3]};
  return CheckChannelsLastY(kOp, x, x_count, y_shape, y, {{grid, grid_count}}, geometry);
}

namespace {

// A fused warp's X, matrix (N, rows, 3) float32 or float64 named `name`, and Y (N, Ho, Wo, C)
// of X's dtype, whose Ho and Wo are free (the output size).
Status ValidateWarp(const char* op, const char* name, int rows, const TensorView& x,
                    const TensorView& m, const MutableTensorView& y,
                    ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(op, x, &x_count);
  if (!s.ok()) return s;
  const std::string what = name;
  if (m.dtype != DType::kFloat32 && m.dtype != DType::kFloat64) {
    return Invalid(op, what + ": expected dtype float32 or float64, got " + DTypeString(m.dtype));
  }
  int64_t m_count = 0;
  s = CheckTensor(op, name, m.data, m.dtype, m.shape, m.rank, &m_count);
  if (!s.ok()) return s;
  const int64_t want_m[3] = {x.shape[0], rows, 3};
  bool m_ok = m.rank == 3;
  for (size_t i = 0; m_ok && i < 3; ++i) m_ok = m.shape[i] == want_m[i];
  if (!m_ok) {
    return Invalid(op, what + ": expected shape " + ShapeString(want_m, 3) + " for X of shape " +
                           ShapeString(x.shape, 4) + ", got " + ShapeString(m.shape, m.rank));
  }
  // The output size is Y's own (Ho, Wo): check those two before anything is derived from them.
  if (y.rank != 4 || y.shape == nullptr) {
    return Invalid(op, "Y: expected shape [" + std::to_string(x.shape[0]) + ", Ho, Wo, " +
                           std::to_string(x.shape[3]) + "] (rank 4), got rank " +
                           std::to_string(y.rank) +
                           (y.shape ? " shape " + ShapeString(y.shape, y.rank)
                                    : std::string(" with a null shape pointer")));
  }
  for (int i = 1; i < 3; ++i) {
    if (y.shape[i] < 0) {
      return Invalid(op, "Y: dimension " + std::to_string(i) + " must be >= 0, got " +
                             std::to_string(y.shape[i]) + " in shape " + ShapeString(y.shape, 4));
    }
  }
  const int64_t y_shape[4] = {x.shape[0], y.shape[1], y.shape[2], x.shape[3]};
  return CheckChannelsLastY(op, x, x_count, y_shape, y, {{m, m_count}}, geometry);
}

}  // namespace

Status ValidateWarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                          ChannelsLastGeometry* geometry) {
  return ValidateWarp("WarpAffine", "theta", 2, x, theta, y, geometry);
}

Status ValidateWarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                               ChannelsLastGeometry* geometry) {
  return ValidateWarp("WarpPerspective", "H", 3, x, h, y, geometry);
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

Status ValidateRemap(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                     const MutableTensorView& y, ChannelsLastGeometry* geometry, bool flow) {
  const char* kOp = flow ? "WarpFlowChannelsLast" : "Remap";
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(kOp, x, &x_count);
  if (!s.ok()) return s;
  // One interleaved map (N, Ho, Wo, 2), or the planes map_x and map_y (N, Ho, Wo) each.
  const size_t rank = map_y ? 3 : 4;
  const std::string expected = map_y ? "[N, Ho, Wo]" : "[N, Ho, Wo, 2]";
  int64_t counts[2] = {0, 0};
  const TensorView* maps[2] = {&map_x, map_y};
  const char* names[2] = {map_y ? (flow ? "flow_x" : "map_x") : (flow ? "flow" : "map"),
                          flow ? "flow_y" : "map_y"};
  for (int k = 0; k < (map_y ? 2 : 1); ++k) {
    const TensorView& m = *maps[k];
    if (m.dtype != DType::kFloat32) {
      return Invalid(kOp, std::string(names[k]) +
                              (flow ? ": expected dtype float32 (pixel offsets), got "
                                    : ": expected dtype float32 (pixel coordinates), got ") +
                              DTypeString(m.dtype));
    }
    s = CheckTensor(kOp, names[k], m.data, m.dtype, m.shape, m.rank, &counts[k]);
    if (!s.ok()) return s;
    if (m.rank != rank || (!map_y && m.shape[3] != 2) || m.shape[0] != x.shape[0]) {
      return Invalid(kOp, std::string(names[k]) + ": expected shape " + expected +
                              " with N = " + std::to_string(x.shape[0]) + " (X's), got " +
                              ShapeString(m.shape, m.rank));
    }
  }
  if (map_y) {
    for (size_t i = 0; i < 3; ++i) {
      if (map_y->shape[i] != map_x.shape[i]) {
        return Invalid(kOp, std::string(names[1]) + ": expected " + names[0] + "'s shape " +
                                ShapeString(map_x.shape, 3) + ", got " +
                                ShapeString(map_y->shape, 3));
      }
    }
  }
  const int64_t y_shape[4] = {x.shape[0], map_x.shape[1], map_x.shape[2], x.shape[3]};
  if (map_y) {
    return CheckChannelsLastY(kOp, x, x_count, y_shape, y,
                              {{map_x, counts[0]}, {*map_y, counts[1]}}, geometry);
  }
  return CheckChannelsLastY(kOp, x, x_count, y_shape, y, {{map_x, counts[0]}}, geometry);
}

Status ValidateRemapCall(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                         const MutableTensorView& y, const GridSampleOptions& options,
                         const double* fill, bool flow, ChannelsLastGeometry* geometry) {
  const char* op = flow ? "WarpFlowChannelsLast" : "Remap";
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = ValidateRemap(x, map_x, map_y, y, geometry, flow);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geometry->c, op);
  return s;
}

}  // namespace gridsample
