// embind registration of Remap (the map sources): one map of (x, y) pairs, or two planes; and
// Remap prepared with its maps once (gs.prepareRemap).
#include <emscripten/bind.h>

#include <cstdint>
#include <new>

#include "api/sampler_plan.h"
#include "gridsample/warp_affine.h"
#include "image_calls.h"

namespace gridsample::bindings {
namespace {

// Remap of an X of this dtype and shape (its data is not read) with its maps read and planned
// now (js/images/fixed_maps.mjs): a prepared call that gridsample_run (prepared_bindings.cc) runs
// on X alone and releasePrepared frees, or 0 with the message kept for takeLastError. map_y 0:
// map_x is one interleaved map.
uintptr_t PrepareRemap(int x_dtype, uintptr_t x_shape, uintptr_t map_x, uintptr_t map_y,
                       uintptr_t map_shape, int mode, int padding, int fill_count, double f0,
                       double f1, double f2, double f3) {
  const TensorView x{nullptr, static_cast<DType>(x_dtype), Shape(x_shape), 4};
  const size_t rank = map_y ? 3 : 4;
  const TensorView maps[2] = {MapView(map_x, map_shape, rank), MapView(map_y, map_shape, rank)};
  const FillArg fill{{f0, f1, f2, f3}, fill_count};
  auto* plan = new (std::nothrow) SamplerPlan();
  if (plan == nullptr) {
    ToCallStatus(Status::OutOfRange("Remap: could not allocate a prepared call"));
    return 0;
  }
  const Status s = PrepareRemapFixed(x, maps, map_y ? 2 : 1, SamplingOptions(mode, padding, false),
                                     fill.get(), plan);
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
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("remap", &Bind<&RunMapWarp, static_cast<MatrixWarp>(&Remap)>::Call);
  function("remapPlanes", &Bind<&RunPlanesWarp, static_cast<PlanesWarp>(&Remap)>::Call);
  function("prepareRemap", &PrepareRemap);
  function("preparedPlanBytes", &PlanBytes);
}
