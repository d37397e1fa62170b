// embind registration of the WebGPU warps' coordinate tables (api/warp_tables.h): which table a
// normalised warpAffine samples from, a table's size and the table itself, on values at heap
// addresses (js/core/library_rules.mjs's warpTable asks for them).
#include <emscripten/bind.h>

#include <cstdint>

#include "api/warp_tables.h"

namespace gridsample::bindings {
namespace {

// The table code (WarpTable) of theta (six doubles at `theta`) of DType code `dtype` under
// Padding code `padding`.
int AffineWarpTableAt(uintptr_t theta, int dtype, int padding) {
  return static_cast<int>(AffineWarpTable(reinterpret_cast<const double*>(theta),
                                          static_cast<DType>(dtype),
                                          static_cast<Padding>(padding)));
}

// WarpTableFloats, sides as JavaScript numbers (integers below 2^53).
double WarpTableFloatsOf(int table, double out_h, double out_w) {
  return static_cast<double>(WarpTableFloats(
      static_cast<WarpTable>(table), static_cast<int64_t>(out_h), static_cast<int64_t>(out_w)));
}

// FillWarpTable of the doubles at `matrix` into the floats at `values` and `source`.
void FillWarpTableAt(int table, uintptr_t matrix, double out_h, double out_w, bool align,
                     uintptr_t values, uintptr_t source) {
  FillWarpTable(static_cast<WarpTable>(table), reinterpret_cast<const double*>(matrix),
                static_cast<int64_t>(out_h), static_cast<int64_t>(out_w), align,
                reinterpret_cast<float*>(values), reinterpret_cast<float*>(source));
}

}  // namespace
}  // namespace gridsample::bindings

EMSCRIPTEN_BINDINGS(gridsample_warp_tables) {
  using namespace gridsample::bindings;
  emscripten::function("affineWarpTable", &AffineWarpTableAt);
  emscripten::function("warpTableFloats", &WarpTableFloatsOf);
  emscripten::function("fillWarpTable", &FillWarpTableAt);
}
