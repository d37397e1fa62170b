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

// FillWarpTable's numbers, as JS writes them (doubles at one heap address,
// js/core/library_rules.mjs): the table's code, the output's sides, align_corners.
struct TableArgs {
  double table, out_h, out_w, align_corners;
};

// FillWarpTable of the doubles at `matrix` as the arguments at `args` say, into the floats at
// `values` and `source`.
void FillWarpTableAt(uintptr_t args, uintptr_t matrix, uintptr_t values, uintptr_t source) {
  const auto& a = *reinterpret_cast<const TableArgs*>(args);
  FillWarpTable(static_cast<WarpTable>(static_cast<int>(a.table)),
                reinterpret_cast<const double*>(matrix), static_cast<int64_t>(a.out_h),
                static_cast<int64_t>(a.out_w), a.align_corners != 0,
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
