// GridSample's public entry points (grid_sample.h) and its argument rule: validate once, then
// run the best available kernel.
#include "gridsample/grid_sample.h"

#include <string>
#include <vector>

#include "api/run.h"
#include "api/sampler_plan.h"
#include "api/validation.h"

namespace gridsample {
namespace {

// GridSample's layouts of X and of the grid for `r` spatial axes: "[N, C, H, W]", "[N, Ho, Wo, 2]".
std::string XLayout(int r) {
  static const char* const kAxes[4] = {"", "W", "H, W", "D, H, W"};
  return "[N, C, " + (r <= 3 ? std::string(kAxes[r]) : "D1..D" + std::to_string(r)) + "]";
}
std::string GridLayout(int r) {
  static const char* const kAxes[4] = {"", "Wo", "Ho, Wo", "Do, Ho, Wo"};
  return "[N, " + (r <= 3 ? std::string(kAxes[r]) : "O1..O" + std::to_string(r)) + ", " +
         std::to_string(r) + "]";
}

// The error for a grid whose rank or last dimension does not fit X (X's shape is checked):
// what X's shape implies, and, for a consistent grid of another rank, the X it would fit
// (e.g. an image given without its channel axis); the JS package shows this message too.
Status GridShapeError(const char* op, const TensorView& x, const TensorView& grid) {
  const int r = static_cast<int>(x.rank) - 2;
  const bool shown = grid.shape != nullptr && grid.rank >= 1 && grid.rank <= 2 + kMaxSpatialRank;
  std::string text =
      "X has shape " + ShapeString(x.shape, x.rank) + ", " + std::to_string(r) +
      (r == 1 ? " spatial axis " : " spatial axes ") + XLayout(r) + ", so grid must have rank " +
      std::to_string(r + 2) + " and last dimension " + std::to_string(r) + " (" + GridLayout(r) +
      "); got grid " +
      (shown ? "shape " + ShapeString(grid.shape, grid.rank) +
                   (grid.rank != x.rank ? " (rank " + std::to_string(grid.rank) + ")" : "")
             : "rank " + std::to_string(grid.rank));
  const int g = static_cast<int>(grid.rank) - 2;
  if (shown && g >= 1 && g != r && grid.shape[grid.rank - 1] == g) {
    text += ", which samples X of shape " + XLayout(g);
    if (static_cast<int>(x.rank) == g + 1) {
      std::vector<int64_t> with_c(x.shape, x.shape + x.rank);
      with_c.insert(with_c.begin() + 1, 1);
      text += " (is X missing its channel axis? " + ShapeString(with_c.data(), with_c.size()) +
              " for one channel)";
    }
  }
  return Invalid(op, text);
}

constexpr const char* kOp = "GridSample";

// Y's shape (N, C, O1..Or) for a validated geometry.
void OutputShape(const GridSampleGeometry& geometry, int64_t* y_shape) {
  y_shape[0] = geometry.n;
  y_shape[1] = geometry.c;
  for (int a = 0; a < geometry.rank; ++a) y_shape[2 + a] = geometry.out[a];
}

}  // namespace

template <Given kGiven>
Status ValidateGridSampleInputs(const TensorView& x, const TensorView& grid,
                                GridSampleGeometry* geometry) {
  constexpr size_t kMaxRank = 2 + kMaxSpatialRank;
  if (x.rank < 3 || x.rank > kMaxRank) {
    return Invalid(kOp, "X: expected rank 3 to " + std::to_string(kMaxRank) +
                            " (N, C, D1..Dr), got rank " + std::to_string(x.rank) +
                            (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  int64_t x_count = 0;
  Status s = CheckInput<kGiven>(kOp, "X", x, &x_count);
  if (!s.ok()) return s;
  const int r = static_cast<int>(x.rank) - 2;
  if (grid.rank != x.rank) return GridShapeError(kOp, x, grid);
  if (kGiven != Given::kShapes) {
    s = CheckFloatDType(kOp, "grid", grid.dtype);
    if (!s.ok()) return s;
  }
  int64_t grid_count = 0;
  s = CheckInput<kGiven>(kOp, "grid", grid, &grid_count);
  if (!s.ok()) return s;
  if (grid.shape[grid.rank - 1] != r) return GridShapeError(kOp, x, grid);
  if (grid.shape[0] != x.shape[0]) {
    return Invalid(kOp, "grid: expected batch size N = " + std::to_string(x.shape[0]) +
                            " (X's), got shape " + ShapeString(grid.shape, grid.rank));
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
  int64_t y_shape[2 + kMaxSpatialRank];
  OutputShape(*geometry, y_shape);
  return CheckOutputSize(kOp, "a spatial dimension", x, x_count, y_shape,
                         kGiven == Given::kShapes ? 1 : DTypeSize(x.dtype));
}

template Status ValidateGridSampleInputs<Given::kShapesAndDTypes>(const TensorView&,
                                                                  const TensorView&,
                                                                  GridSampleGeometry*);

Status ValidateGridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                          GridSampleGeometry* geometry) {
  Status s = ValidateGridSampleInputs<Given::kShapesAndDTypes>(x, grid, geometry);
  if (s.ok()) s = CheckData(kOp, "X", x);
  if (s.ok()) s = CheckData(kOp, "grid", grid);
  if (!s.ok()) return s;
  int64_t y_shape[2 + kMaxSpatialRank];
  OutputShape(*geometry, y_shape);
  return CheckOutput(kOp, "Y", y, x.dtype, y_shape, x.rank,
                     {{x, ElementCount(x)}, {grid, ElementCount(grid)}});
}

Status GridSampleOutputShape(const TensorView& x, const TensorView& grid, int64_t* y_shape) {
  if (y_shape == nullptr) return Status::InvalidArgument("GridSample: y_shape pointer is null");
  GridSampleGeometry geometry;
  Status s = ValidateGridSampleInputs<Given::kShapes>(x, grid, &geometry);
  if (s.ok()) OutputShape(geometry, y_shape);
  return s;
}

Status PrepareGridSample(const TensorView& x, const TensorView& grid,
                         const GridSampleOptions& options, SamplerPlan* plan) {
  Status s = ValidateGridSampleOptions(options);
  if (s.ok()) s = ValidateGridSampleInputs<Given::kShapesAndDTypes>(x, grid, &plan->planes);
  if (!s.ok()) return s;
  int64_t y_shape[2 + kMaxSpatialRank];
  OutputShape(plan->planes, y_shape);
  PlanInputs(kOp, x, "grid", grid, plan);
  PlanOutput(x.dtype, y_shape, x.rank, plan);
  plan->options = options;
  plan->execute = [](const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
    RunFrom<GridAt>(PlanesProblem{p.planes, in[0], GridAt{in[1]}, y, p.options});
    return Status::Ok();
  };
  return Status::Ok();
}

Status Sampler::GridSample(const TensorView& x, const TensorView& grid,
                           const GridSampleOptions& options, Sampler* sampler) {
  return PrepareSampler(
      kOp, sampler, [&](SamplerPlan* plan) { return PrepareGridSample(x, grid, options, plan); });
}

Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options) {
  return PrepareAndRun([&](SamplerPlan* plan) { return PrepareGridSample(x, grid, options, plan); },
                       {x.data, grid.data}, y);
}

}  // namespace gridsample
