// embind registration of channels-last GridSample (the grid source of the image warps' driver).
#include <emscripten/bind.h>

#include <cstdint>

#include "api/validation.h"
#include "gridsample/warp_affine.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::SamplingOptions;
using bindings::Shape;
using bindings::ShapeQuery;
using bindings::ToCallStatus;

// Channels-last tensors: x, grid and y are rank 4.
int GridSampleChannelsLastAdapter(uintptr_t x, int x_dtype, uintptr_t x_shape, uintptr_t grid,
                                  int grid_dtype, uintptr_t grid_shape, uintptr_t y,
                                  uintptr_t y_shape, int mode, int padding, bool align_corners) {
  return ToCallStatus(GridSampleChannelsLast(
      {reinterpret_cast<const void*>(x), static_cast<DType>(x_dtype), Shape(x_shape), 4},
      {reinterpret_cast<const void*>(grid), static_cast<DType>(grid_dtype), Shape(grid_shape), 4},
      {reinterpret_cast<void*>(y), static_cast<DType>(x_dtype), Shape(y_shape), 4},
      SamplingOptions(mode, padding, align_corners)));
}

// Whether the channels-last planner folds taps (gridsample/webgpu does too).
bool ChannelsLastFoldsTapsAdapter(double height, double width, int channels, int dtype, int mode) {
  return ChannelsLastFoldsTaps(static_cast<int64_t>(height), static_cast<int64_t>(width), channels,
                               static_cast<DType>(dtype), static_cast<Mode>(mode));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_channels_last) {
  using namespace emscripten;
  using namespace gridsample;
  function("gridSampleChannelsLast", &GridSampleChannelsLastAdapter);
  function("gridSampleChannelsLastOutputShape", &ShapeQuery<&GridSampleChannelsLastOutputShape>);
  function("channelsLastFoldsTaps", &ChannelsLastFoldsTapsAdapter);
}
