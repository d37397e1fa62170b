// embind registration of WarpAffine (the affine source): the whole output or a band of its rows.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/warp_affine.h"
#include "image_calls.h"

EMSCRIPTEN_BINDINGS(gridsample_affine_warp) {
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("warpAffine", &Bind<&RunWarp, &WarpAffine>::Call);
  function("warpAffineRows", &Bind<&RunWarpRows, &WarpAffineRows>::Call);
}
