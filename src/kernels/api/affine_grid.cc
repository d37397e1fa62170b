// AffineGrid's public entry points (affine_grid.h) and its argument rule: validate once, then run
// the best available kernel.
#include "gridsample/affine_grid.h"

#include <string>

#include "api/sampler_plan.h"
#include "api/validation.h"
#include "drivers/fast.h"
#include "reference/reference.h"

namespace gridsample {

Status AffineGridOutputShape(const int64_t* size, size_t size_len, int64_t* grid_shape) {
  if (size == nullptr || grid_shape == nullptr) {
    return Status::InvalidArgument("AffineGrid: size and grid_shape pointers must not be null");
  }
  if (size_len != 4 && size_len != 5) {
    return Status::InvalidArgument(
        "AffineGrid: size: expected 4 values (N, C, H, W) or 5 (N, C, D, H, W), got " +
        std::to_string(size_len));
  }
  for (size_t i = 0; i < size_len; ++i) {
    if (size[i] < 0) {
      std::string given;
      for (size_t j = 0; j < size_len; ++j) given += (j ? ", " : "") + std::to_string(size[j]);
      return Status::InvalidArgument("AffineGrid: size: entry " + std::to_string(i) +
                                     " must be >= 0, got [" + given + "]");
    }
  }
  // (N, C, spatial...) -> (N, spatial..., r)
  grid_shape[0] = size[0];
  for (size_t i = 2; i < size_len; ++i) grid_shape[i - 1] = size[i];
  grid_shape[size_len - 1] = static_cast<int64_t>(size_len) - 2;
  return Status::Ok();
}

namespace {

constexpr const char* kOp = "AffineGrid";

// theta and size's rule: fills the grid's shape (size_len values), theta's and the grid's
// element counts, and the geometry.
Status ValidateAffineGridInputs(const TensorView& theta, const int64_t* size, size_t size_len,
                                int64_t* grid_shape, int64_t* theta_count, int64_t* grid_count,
                                AffineGridGeometry* geometry) {
  Status s = AffineGridOutputShape(size, size_len, grid_shape);  // checks size itself
  if (!s.ok()) return s;
  const int r = static_cast<int>(size_len) - 2;
  const int64_t want_theta[3] = {size[0], r, r + 1};
  s = CheckFloatDType(kOp, "theta", theta.dtype);
  if (!s.ok()) return s;
  s = CheckInput<Given::kShapesAndDTypes>(kOp, "theta", theta, theta_count);
  if (!s.ok()) return s;
  bool theta_ok = theta.rank == 3;
  for (size_t i = 0; theta_ok && i < 3; ++i) theta_ok = theta.shape[i] == want_theta[i];
  if (!theta_ok) {
    return Invalid(kOp, "theta: expected shape " + ShapeString(want_theta, 3) + " for size " +
                            ShapeString(size, size_len) + ", got " +
                            ShapeString(theta.shape, theta.rank));
  }
  s = CountElements(kOp, "grid", grid_shape, size_len, DTypeSize(theta.dtype), grid_count);
  if (!s.ok()) return s;
  geometry->rank = r;
  geometry->n = size[0];
  geometry->points = 1;
  for (int a = 0; a < r; ++a) {
    geometry->spatial[a] = size[2 + a];
    geometry->points *= size[2 + a];
  }
  return Status::Ok();
}

}  // namespace

Status ValidateAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                          const MutableTensorView& grid, AffineGridGeometry* geometry) {
  int64_t grid_shape[5];
  int64_t theta_count = 0;
  int64_t grid_count = 0;
  Status s = ValidateAffineGridInputs(theta, size, size_len, grid_shape, &theta_count, &grid_count,
                                      geometry);
  if (s.ok()) s = CheckData(kOp, "theta", theta);
  if (!s.ok()) return s;
  return CheckOutput(kOp, "grid", grid, theta.dtype, grid_shape, size_len, {{theta, theta_count}});
}

Status PrepareAffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                         const AffineGridOptions& options, SamplerPlan* plan) {
  Status s = ValidateThreads(options.threads, kOp);
  int64_t theta_count = 0;
  PlannedTensor& grid = plan->output;
  if (s.ok()) {
    s = ValidateAffineGridInputs(theta, size, size_len, grid.shape, &theta_count, &grid.count,
                                 &plan->affine);
  }
  if (!s.ok()) return s;
  grid.dtype = theta.dtype;
  grid.rank = size_len;
  plan->op = kOp;
  plan->input_names[0] = "theta";
  plan->output_name = "grid";
  plan->input_count = 1;
  plan->inputs[0] = PlannedTensor::Of(theta, theta_count);
  plan->options.align_corners = options.align_corners;
  plan->options.threads = options.threads;
  plan->execute = [](const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
    AffineGridOptions o;
    o.align_corners = p.options.align_corners;
    o.threads = p.options.threads;
    if (!fast::TryAffineGrid(p.affine, in[0], y, o))
      reference::RunAffineGrid(p.affine, in[0], y, o);
    return Status::Ok();
  };
  return Status::Ok();
}

Status Sampler::AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                           const AffineGridOptions& options, Sampler* sampler) {
  return PrepareSampler(kOp, sampler, [&](SamplerPlan* plan) {
    return PrepareAffineGrid(theta, size, size_len, options, plan);
  });
}

Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options) {
  return PrepareAndRun(
      [&](SamplerPlan* plan) { return PrepareAffineGrid(theta, size, size_len, options, plan); },
      {theta.data}, grid);
}

}  // namespace gridsample
