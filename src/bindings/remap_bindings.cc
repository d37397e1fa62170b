// embind registration of Remap (the map sources): one map of (x, y) pairs, or two planes.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/warp_affine.h"
#include "image_calls.h"

EMSCRIPTEN_BINDINGS(gridsample_remap) {
  using namespace emscripten;
  using namespace gridsample;
  using namespace gridsample::bindings;
  function("remap", &Bind<&RunMapWarp, static_cast<MapWarp>(&Remap)>::Call);
  function("remapPlanes", &Bind<&RunPlanesWarp, static_cast<PlanesWarp>(&Remap)>::Call);
}
