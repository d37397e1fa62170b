// WarpFlow's public entry point (warp_flow.h) and its argument rule: validate once, then run the
// best available kernel.
#include "gridsample/warp_flow.h"

#include <string>

#include "api/run.h"
#include "api/sampler_plan.h"
#include "api/validation.h"

namespace gridsample {
namespace {

constexpr const char* kOp = "WarpFlow";

}  // namespace

Status ValidateWarpFlowInputs(const TensorView& x, const TensorView& flow,
                              GridSampleGeometry* geometry) {
  if (x.rank != 4) {
    return Invalid(kOp, "X: expected rank 4 (N, C, H, W), got rank " + std::to_string(x.rank) +
                            (x.shape ? " shape " + ShapeString(x.shape, x.rank) : std::string()));
  }
  int64_t x_count = 0;
  Status s = CheckInput<Given::kShapesAndDTypes>(kOp, "X", x, &x_count);
  if (!s.ok()) return s;
  if (flow.dtype != DType::kFloat32) {
    return Invalid(kOp, "flow: expected dtype float32 (displacements in pixels), got " +
                            DTypeString(flow.dtype));
  }
  int64_t flow_count = 0;
  s = CheckInput<Given::kShapesAndDTypes>(kOp, "flow", flow, &flow_count);
  if (!s.ok()) return s;
  if (flow.rank != 4 || flow.shape[1] != 2 || flow.shape[0] != x.shape[0]) {
    return Invalid(kOp, "flow: expected shape [" + std::to_string(x.shape[0]) +
                            ", 2, Ho, Wo] (dx and dy for X of shape " + ShapeString(x.shape, 4) +
                            "), got " + ShapeString(flow.shape, flow.rank));
  }
  const int64_t y_shape[4] = {x.shape[0], x.shape[1], flow.shape[2], flow.shape[3]};
  s = CheckOutputSize(kOp, "a dimension", x, x_count, y_shape, DTypeSize(x.dtype));
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

Status ValidateWarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                        GridSampleGeometry* geometry) {
  Status s = ValidateWarpFlowInputs(x, flow, geometry);
  if (s.ok()) s = CheckData(kOp, "X", x);
  if (s.ok()) s = CheckData(kOp, "flow", flow);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {geometry->n, geometry->c, geometry->out[0], geometry->out[1]};
  return CheckOutput(kOp, "Y", y, x.dtype, y_shape, 4,
                     {{x, ElementCount(x)}, {flow, ElementCount(flow)}});
}

Status WarpFlowOutputShape(const TensorView& x, const TensorView& flow, int64_t* y_shape) {
  GridSampleGeometry geometry;
  Status s = ValidateWarpFlowInputs(x, flow, &geometry);
  if (!s.ok()) return s;
  y_shape[0] = geometry.n;
  y_shape[1] = geometry.c;
  y_shape[2] = geometry.out[0];
  y_shape[3] = geometry.out[1];
  return Status::Ok();
}

Status PrepareWarpFlow(const TensorView& x, const TensorView& flow,
                       const GridSampleOptions& options, SamplerPlan* plan) {
  Status s = ValidateGridSampleOptions(options, kOp);
  if (s.ok()) s = ValidateWarpFlowInputs(x, flow, &plan->planes);
  if (!s.ok()) return s;
  const GridSampleGeometry& geo = plan->planes;
  const int64_t y_shape[4] = {geo.n, geo.c, geo.out[0], geo.out[1]};
  PlanInputs(kOp, x, "flow", flow, plan);
  PlanOutput(x.dtype, y_shape, 4, plan);
  plan->options = options;
  plan->execute = [](const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
    RunFrom<FlowAt>(PlanesProblem{p.planes, in[0], FlowAt{in[1]}, y, p.options});
    return Status::Ok();
  };
  return Status::Ok();
}

Status Sampler::WarpFlow(const TensorView& x, const TensorView& flow,
                         const GridSampleOptions& options, Sampler* sampler) {
  return PrepareSampler(kOp, sampler,
                        [&](SamplerPlan* plan) { return PrepareWarpFlow(x, flow, options, plan); });
}

Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options) {
  return PrepareAndRun([&](SamplerPlan* plan) { return PrepareWarpFlow(x, flow, options, plan); },
                       {x.data, flow.data}, y);
}

}  // namespace gridsample
