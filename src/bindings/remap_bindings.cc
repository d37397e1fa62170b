// Remap (the map sources) from a call block: one map of (x, y) pairs, or two planes
// (prepared_bindings.cc runs it); and Remap prepared with its maps once (gs.prepareRemap).
#include <emscripten/bind.h>

#include <cstdint>
#include <new>
#include <string>

#include "call_block.h"

namespace gridsample::bindings {
namespace {

const RegisterPreparer kPreparer(BlockOp::kRemap, [](const CallBlock& b, SamplerPlan* plan) {
  TensorView maps[2];
  const int count = static_cast<int>(BlockMaps(b, maps));
  return PrepareRemap(BlockSpec(b, 0), maps, count, BlockOptions(b), BlockFill(b), plan);
});

// Remap as the block at `block` describes it (X's dtype and shape, the maps' shape, options, fill)
// with the maps' data at map_x and map_y (0 for one interleaved map) read and planned now
// (js/images/fixed_maps.mjs): a prepared call that gridsample_run runs on X alone and
// releasePrepared frees, or 0 with the message kept for takeLastError.
uintptr_t PrepareRemapFixedAt(uintptr_t block, uintptr_t map_x, uintptr_t map_y) {
  const CallBlock& b = *reinterpret_cast<const CallBlock*>(block);
  TensorView maps[2];
  const int count = static_cast<int>(BlockMaps(b, maps));
  maps[0].data = reinterpret_cast<const void*>(map_x);
  maps[1].data = reinterpret_cast<const void*>(map_y);
  auto* plan = new (std::nothrow) SamplerPlan();
  if (plan == nullptr) {
    ToCallStatus(Status::OutOfRange("Remap: could not allocate a prepared call"));
    return 0;
  }
  const Status s =
      b.fill_count < 0 || b.fill_count > 4
          ? Status::InvalidArgument("Remap: a fill of " + std::to_string(b.fill_count) + " values")
          : PrepareRemapFixed(BlockSpec(b, 0), maps, count, BlockOptions(b), BlockFill(b), plan);
  if (!s.ok()) {
    delete plan;
    ToCallStatus(s);
    return 0;
  }
  return reinterpret_cast<uintptr_t>(plan);
}

// The bytes a prepared call keeps beyond its description (Sampler::plan_bytes).
double PlanBytes(uintptr_t plan) {
  return static_cast<double>(PlanExtraBytes(*reinterpret_cast<const SamplerPlan*>(plan)));
}

}  // namespace
}  // namespace gridsample::bindings

EMSCRIPTEN_BINDINGS(gridsample_remap) {
  using namespace gridsample::bindings;
  emscripten::function("prepareRemapFixed", &PrepareRemapFixedAt);
  emscripten::function("preparedPlanBytes", &PlanBytes);
}
