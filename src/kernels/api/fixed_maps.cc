// Coordinates given at preparation (Sampler::RemapFixed, WarpFlowChannelsLastFixed,
// GridSampleChannelsLastFixed): planned once by the fast path (drivers/map_plan.h) and replayed
// on each image, or, where no fast path covers the call, copied and run as the unprepared call
// runs.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "api/run.h"
#include "api/sampler_plan.h"
#include "drivers/map_plan.h"

namespace gridsample {

struct FixedMaps {
  std::unique_ptr<fast::MapPlan> plan;  // the fast path's plans, or null
  // Else the coordinates, kept: their copies, and the source that reads them.
  std::unique_ptr<uint8_t[]> copies[2];
  PixelsProblem::Source source;
  size_t bytes = 0;
};

namespace {

// Runs a plan made by PlanFixedCoordinates on X alone.
Status ExecuteFixedMaps(const SamplerPlan& p, const TensorView* in, const MutableTensorView& y) {
  const FixedMaps& f = *p.fixed_maps;
  const PixelsProblem problem{p.pixels, in[0], f.source, y, p.options, p.fill};
  // Each source's own path (api/run.h's RunFrom: a module links only the map kernels).
  if (f.plan) {
    f.plan->Run(in[0].data, y.data, p.options.threads);
  } else if (std::get_if<MapPairsAt>(&f.source)) {
    RunFrom<MapPairsAt>(problem);
  } else if (std::get_if<MapPlanesAt>(&f.source)) {
    RunFrom<MapPlanesAt>(problem);
  } else if (std::get_if<FlowPairsAt>(&f.source)) {
    RunFrom<FlowPairsAt>(problem);
  } else if (std::get_if<GridAt>(&f.source)) {
    RunFrom<GridAt>(problem);
  } else {
    RunFrom<FlowPlanesAt>(problem);
  }
  return Status::Ok();
}

// The coordinates as a source of the given kind, reading `views`.
PixelsProblem::Source SourceOf(const TensorView* views, int count, FixedCoordinates kind) {
  const bool offsets = kind == FixedCoordinates::kOffsets;
  if (kind == FixedCoordinates::kGrid) return GridAt{views[0]};
  if (count == 1) {
    return offsets ? PixelsProblem::Source(FlowPairsAt{views[0]})
                   : PixelsProblem::Source(MapPairsAt{views[0]});
  }
  return offsets ? PixelsProblem::Source(FlowPlanesAt{views[0], views[1]})
                 : PixelsProblem::Source(MapPlanesAt{views[0], views[1]});
}

Status NoMemory(const SamplerPlan& plan, size_t bytes) {
  return Status::OutOfRange(std::string(plan.op) + ": could not allocate " + std::to_string(bytes) +
                            " bytes for the prepared maps");
}

}  // namespace

Status PlanFixedCoordinates(const TensorView* maps, int count, FixedCoordinates kind,
                            SamplerPlan* plan) {
  auto fixed = std::shared_ptr<FixedMaps>(new (std::nothrow) FixedMaps());
  if (fixed == nullptr) return NoMemory(*plan, sizeof(FixedMaps));
  fixed->bytes = sizeof(FixedMaps);
  const TensorView x = plan->inputs[0].View(nullptr);
  const PlannedTensor& out = plan->output;
  const MutableTensorView y{nullptr, out.dtype, out.shape, out.rank};
  const PixelsProblem problem{plan->pixels,  x,         SourceOf(maps, count, kind), y,
                              plan->options, plan->fill};
  Status s;
  if (fast::PrepareMapPlan(problem, &fixed->plan, &s)) {
    if (!s.ok()) return Status::OutOfRange(std::string(plan->op) + ": " + s.message());
    fixed->bytes += fixed->plan->bytes;
  } else {
    // No fast path: the coordinates kept as given.
    TensorView views[2];
    for (int k = 0; k < count; ++k) {
      const size_t bytes =
          static_cast<size_t>(plan->inputs[1 + k].count) * DTypeSize(maps[k].dtype);
      fixed->copies[k].reset(new (std::nothrow) uint8_t[bytes > 0 ? bytes : 1]);
      if (fixed->copies[k] == nullptr) return NoMemory(*plan, bytes);
      if (bytes > 0) std::memcpy(fixed->copies[k].get(), maps[k].data, bytes);
      fixed->bytes += bytes;
      views[k] = maps[k];
      views[k].data = fixed->copies[k].get();
    }
    fixed->source = SourceOf(views, count, kind);
  }
  if (plan->fill != nullptr) {  // the caller's colour, kept (the plan may outlive it)
    plan->fill_storage.assign(plan->fill, plan->fill + plan->pixels.c);
    plan->fill = plan->fill_storage.data();
  }
  // The plan takes X alone from now on.
  plan->input_count = 1;
  for (int k = 1; k < static_cast<int>(SamplerPlan::kMaxInputs); ++k) {
    plan->input_names[k] = nullptr;
    plan->inputs[k] = PlannedTensor();
  }
  plan->execute = ExecuteFixedMaps;
  plan->fixed_maps = std::move(fixed);
  return Status::Ok();
}

size_t PlanExtraBytes(const SamplerPlan& plan) {
  return plan.fixed_maps ? plan.fixed_maps->bytes : 0;
}

}  // namespace gridsample
