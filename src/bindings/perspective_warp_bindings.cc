// embind registration of WarpPerspective (the perspective source): the whole output or a band of
// rows.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/warp_affine.h"
#include "image_calls.h"

EMSCRIPTEN_BINDINGS(gridsample_perspective_warp) {
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("warpPerspective", &Bind<&RunWarp, &WarpPerspective>::Call);
  function("warpPerspectiveRows", &Bind<&RunWarpRows, &WarpPerspectiveRows>::Call);
}
