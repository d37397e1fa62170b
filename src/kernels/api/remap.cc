// The public entry points that sample at pixel maps (warp_affine.h, warp_flow.h): Remap's
// positions and WarpFlowChannelsLast's offsets, as one map of pairs or two planes, and their
// argument rule: validate once, then the fast path, else the generic scalar path.
#include <string>

#include "api/run.h"
#include "api/sampler_plan.h"
#include "api/validation.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"

namespace gridsample {

namespace {

// The maps' rule up to their data: X, the maps, the output size; fills the element counts.
Status ValidateRemapInputs(const MapNames& names, const TensorView& x, const TensorView* maps,
                           int count, ChannelsLastGeometry* geometry, int64_t* x_count,
                           int64_t* counts) {
  Status s = CheckChannelsLastX(names.op, x, x_count);
  if (s.ok()) s = CheckMaps(names, x, maps, count, counts);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {x.shape[0], maps[0].shape[1], maps[0].shape[2], x.shape[3]};
  return ChannelsLastOutput(names.op, x, *x_count, y_shape, geometry);
}

}  // namespace

Status ValidateRemap(const MapNames& names, const TensorView& x, const TensorView* maps, int count,
                     const MutableTensorView& y, ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  int64_t counts[2] = {0, 0};
  Status s = ValidateRemapInputs(names, x, maps, count, geometry, &x_count, counts);
  if (s.ok()) s = CheckData(names.op, "X", x);
  for (int k = 0; s.ok() && k < count; ++k) {
    s = CheckData(names.op, count == 2 ? names.planes[k] : names.pairs, maps[k]);
  }
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {x.shape[0], maps[0].shape[1], maps[0].shape[2], x.shape[3]};
  if (count == 2) {
    return CheckOutput(names.op, "Y", y, x.dtype, y_shape, 4,
                       {{x, x_count}, {maps[0], counts[0]}, {maps[1], counts[1]}});
  }
  return CheckOutput(names.op, "Y", y, x.dtype, y_shape, 4, {{x, x_count}, {maps[0], counts[0]}});
}

Status ValidateRemapCall(const MapNames& names, const TensorView& x, const TensorView* maps,
                         int count, const MutableTensorView& y, const GridSampleOptions& options,
                         const double* fill, ChannelsLastGeometry* geometry) {
  Status s = ValidateGridSampleOptions(options, names.op);
  if (s.ok()) s = ValidateRemap(names, x, maps, count, y, geometry);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geometry->c, names.op);
  return s;
}

namespace {

// How a validated call samples at each layout of its maps.
template <class Pairs, class Planes>
Status ExecuteMaps(const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
  if (p.input_count == 2) {
    RunFrom<Pairs>(PixelsProblem{p.pixels, in[0], Pairs{in[1]}, y, p.options, p.fill});
  } else {
    RunFrom<Planes>(PixelsProblem{p.pixels, in[0], Planes{in[1], in[2]}, y, p.options, p.fill});
  }
  return Status::Ok();
}

// Every Remap and WarpFlowChannelsLast: `count` maps named as `names` says, run by `execute`; the
// rule up to the data.
Status PrepareMaps(const MapNames& names, SamplerPlan::Execute execute, const TensorView& x,
                   const TensorView* maps, int count, const GridSampleOptions& options,
                   const double* fill, SamplerPlan* plan) {
  int64_t x_count = 0;
  int64_t counts[2] = {0, 0};
  ChannelsLastGeometry& geo = plan->pixels;
  Status s = ValidateGridSampleOptions(options, names.op);
  if (s.ok()) s = ValidateRemapInputs(names, x, maps, count, &geo, &x_count, counts);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, names.op);
  if (!s.ok()) return s;
  plan->op = names.op;
  plan->input_names[0] = "X";
  plan->inputs[0] = PlannedTensor::Of(x, x_count);
  for (int k = 0; k < count; ++k) {
    plan->input_names[1 + k] = count == 2 ? names.planes[k] : names.pairs;
    plan->inputs[1 + k] = PlannedTensor::Of(maps[k], counts[k]);
  }
  plan->input_count = 1 + static_cast<size_t>(count);
  const int64_t y_shape[4] = {geo.n, geo.out_h, geo.out_w, geo.c};
  plan->output =
      PlannedTensor::Of({nullptr, x.dtype, y_shape, 4}, geo.n * geo.out_h * geo.out_w * geo.c);
  plan->options = options;
  plan->fill = fill;
  plan->execute = execute;
  return Status::Ok();
}

constexpr SamplerPlan::Execute kRemapExecute = ExecuteMaps<MapPairsAt, MapPlanesAt>;
constexpr SamplerPlan::Execute kFlowExecute = ExecuteMaps<FlowPairsAt, FlowPlanesAt>;

// A free function: prepared on the stack, then run on the call's data.
Status SampleAtMaps(const MapNames& names, SamplerPlan::Execute execute, const TensorView& x,
                    const TensorView* maps, int count, const MutableTensorView& y,
                    const GridSampleOptions& options, const double* fill) {
  return PrepareAndRun(
      [&](SamplerPlan* plan) {
        return PrepareMaps(names, execute, x, maps, count, options, fill, plan);
      },
      {x.data, maps[0].data, count == 2 ? maps[1].data : nullptr}, y);
}

// A Sampler of them.
Status MapsSampler(const MapNames& names, SamplerPlan::Execute execute, const TensorView& x,
                   const TensorView* maps, int count, const GridSampleOptions& options,
                   const double* fill, Sampler* sampler) {
  return PrepareSampler(names.op, sampler, [&](SamplerPlan* plan) {
    return PrepareMaps(names, execute, x, maps, count, options, fill, plan);
  });
}

// Their plan with the maps' data given now, read once and planned (api/fixed_maps.cc): the
// maps' data checks after the rule's, then the plan.
Status PrepareFixed(const MapNames& names, SamplerPlan::Execute execute, bool offsets,
                    const TensorView& x, const TensorView* maps, int count,
                    const GridSampleOptions& options, const double* fill, SamplerPlan* plan) {
  Status s = PrepareMaps(names, execute, x, maps, count, options, fill, plan);
  for (int k = 0; s.ok() && k < count; ++k) {
    s = CheckData(names.op, plan->input_names[1 + k], maps[k]);
  }
  const FixedCoordinates kind = offsets ? FixedCoordinates::kOffsets : FixedCoordinates::kPositions;
  return s.ok() ? PlanFixedCoordinates(maps, count, kind, plan) : s;
}

// A Sampler of them.
Status FixedMapsSampler(const MapNames& names, SamplerPlan::Execute execute, bool offsets,
                        const TensorView& x, const TensorView* maps, int count,
                        const GridSampleOptions& options, const double* fill, Sampler* sampler) {
  return PrepareSampler(names.op, sampler, [&](SamplerPlan* plan) {
    return PrepareFixed(names, execute, offsets, x, maps, count, options, fill, plan);
  });
}

}  // namespace

Status PrepareRemap(const TensorView& x, const TensorView* maps, int count,
                    const GridSampleOptions& options, const double* fill, SamplerPlan* plan) {
  return PrepareMaps(kRemapMaps, kRemapExecute, x, maps, count, options, fill, plan);
}

Status PrepareWarpFlowChannelsLast(const TensorView& x, const TensorView* flows, int count,
                                   const GridSampleOptions& options, const double* fill,
                                   SamplerPlan* plan) {
  return PrepareMaps(kFlowMaps, kFlowExecute, x, flows, count, options, fill, plan);
}

Status PrepareRemapFixed(const TensorView& x, const TensorView* maps, int count,
                         const GridSampleOptions& options, const double* fill, SamplerPlan* plan) {
  return PrepareFixed(kRemapMaps, kRemapExecute, false, x, maps, count, options, fill, plan);
}

Status Sampler::RemapFixed(const TensorView& x, const TensorView& map,
                           const GridSampleOptions& options, const double* fill, Sampler* sampler) {
  return FixedMapsSampler(kRemapMaps, kRemapExecute, false, x, &map, 1, options, fill, sampler);
}

Status Sampler::RemapFixed(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
                           const GridSampleOptions& options, const double* fill, Sampler* sampler) {
  const TensorView maps[2] = {map_x, map_y};
  return FixedMapsSampler(kRemapMaps, kRemapExecute, false, x, maps, 2, options, fill, sampler);
}

Status Sampler::WarpFlowChannelsLastFixed(const TensorView& x, const TensorView& flow,
                                          const GridSampleOptions& options, const double* fill,
                                          Sampler* sampler) {
  return FixedMapsSampler(kFlowMaps, kFlowExecute, true, x, &flow, 1, options, fill, sampler);
}

Status Sampler::WarpFlowChannelsLastFixed(const TensorView& x, const TensorView& flow_x,
                                          const TensorView& flow_y,
                                          const GridSampleOptions& options, const double* fill,
                                          Sampler* sampler) {
  const TensorView maps[2] = {flow_x, flow_y};
  return FixedMapsSampler(kFlowMaps, kFlowExecute, true, x, maps, 2, options, fill, sampler);
}

Status Sampler::Remap(const TensorView& x, const TensorView& map, const GridSampleOptions& options,
                      const double* fill, Sampler* sampler) {
  return MapsSampler(kRemapMaps, kRemapExecute, x, &map, 1, options, fill, sampler);
}

Status Sampler::Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
                      const GridSampleOptions& options, const double* fill, Sampler* sampler) {
  const TensorView maps[2] = {map_x, map_y};
  return MapsSampler(kRemapMaps, kRemapExecute, x, maps, 2, options, fill, sampler);
}

Status Sampler::WarpFlowChannelsLast(const TensorView& x, const TensorView& flow,
                                     const GridSampleOptions& options, const double* fill,
                                     Sampler* sampler) {
  return MapsSampler(kFlowMaps, kFlowExecute, x, &flow, 1, options, fill, sampler);
}

Status Sampler::WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x,
                                     const TensorView& flow_y, const GridSampleOptions& options,
                                     const double* fill, Sampler* sampler) {
  const TensorView maps[2] = {flow_x, flow_y};
  return MapsSampler(kFlowMaps, kFlowExecute, x, maps, 2, options, fill, sampler);
}

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kRemapMaps, kRemapExecute, x, &map, 1, y, options, fill);
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  const TensorView maps[2] = {map_x, map_y};
  return SampleAtMaps(kRemapMaps, kRemapExecute, x, maps, 2, y, options, fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                            const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kFlowMaps, kFlowExecute, x, &flow, 1, y, options, fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x, const TensorView& flow_y,
                            const MutableTensorView& y, const GridSampleOptions& options,
                            const double* fill) {
  const TensorView maps[2] = {flow_x, flow_y};
  return SampleAtMaps(kFlowMaps, kFlowExecute, x, maps, 2, y, options, fill);
}

}  // namespace gridsample
