// embind registration of the flow source: WarpFlow (NCHW, and its output shape) and image flows.
#include <emscripten/bind.h>

#include <cstdint>

#include "api/validation.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"
#include "image_calls.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::SamplingOptions;
using bindings::Shape;
using bindings::ShapeQuery;
using bindings::ToCallStatus;

// x (N, C, H, W) and flow (N, 2, Ho, Wo) of the ranks given (the library checks them), y of x's.
int WarpFlowAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, int x_rank, uintptr_t flow,
                    uintptr_t flow_shape, int flow_rank, uintptr_t y, uintptr_t y_shape, int mode,
                    int padding, bool align_corners) {
  return ToCallStatus(
      WarpFlow({reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape),
                static_cast<size_t>(x_rank)},
               {reinterpret_cast<const void*>(flow), DType::kFloat32, Shape(flow_shape),
                static_cast<size_t>(flow_rank)},
               {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
               SamplingOptions(mode, padding, align_corners)));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_warp_flow) {
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("warpFlow", &WarpFlowAdapter);
  function("warpFlowOutputShape", &ShapeQuery<&WarpFlowOutputShape>);
  // Channels-last images (images/flows.mjs): one interleaved flow, or dx and dy planes.
  function("warpFlowImage",
           &Bind<&RunMapWarp, static_cast<MatrixWarp>(&WarpFlowChannelsLast)>::Call);
  function("warpFlowImagePlanes",
           &Bind<&RunPlanesWarp, static_cast<PlanesWarp>(&WarpFlowChannelsLast)>::Call);
}
