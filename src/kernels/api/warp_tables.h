// The coordinate tables gridsample/webgpu's warp shaders sample from (js/webgpu/warps.mjs), made
// by the library's own rules so that JavaScript restates none: AffineGrid's base coordinates
// times theta (rules/affine_base.h, sources/affine_terms.h) as float32 pairs, AffineGrid's values
// per pixel (sources/affine_source.h, rules/coordinate_rule.h) and the homography's row terms
// (rules/perspective_rule.h). Internal, not public API: src/bindings/warp_tables_bindings.cc
// hands it to JavaScript.
#ifndef GRIDSAMPLE_API_WARP_TABLES_H_
#define GRIDSAMPLE_API_WARP_TABLES_H_

#include <cstdint>

#include "gridsample/types.h"

namespace gridsample {

// The tables, by the codes the binding passes (js/core/library_rules.mjs's WARP_TABLES names
// them after the shader's sources, js/webgpu/warp_wgsl.mjs).
enum class WarpTable : int32_t {
  // A normalised warpAffine: per output column j the products t_k0 x_j, then per row i the
  // products t_k1 y_i (k = 0, 1: the x and y values), each a pair (hi, lo) of float32s (about
  // 48 bits) kept within +-2^100; source: t_02 and t_12 as pairs.
  kAffineTerms = 0,
  // A normalised warpAffine by a float64 theta under reflection whose values may exceed what
  // the pairs hold exactly: per output pixel AffineGrid's (x, y) as GridSample takes them
  // (reduced modulo 4 past 3, then float32); source: zeros.
  kAffinePoints,
  // Every other matrix warp (H from output pixels to input pixels): per output row i the row
  // terms (x, y, w) of PerspectiveRowTerms; source: its column terms (x, y, w) and 0.
  kPerspectiveTerms,
};

// The table a normalised warpAffine samples from: theta (six values, as doubles) of `dtype`
// (kFloat32 or kFloat64) under `padding`.
WarpTable AffineWarpTable(const double* theta, DType dtype, Padding padding);

// How many floats `table` holds for an out_h x out_w output (sides >= 0); INT64_MAX where that
// count overflows (larger than any binding: the caller refuses it).
int64_t WarpTableFloats(WarpTable table, int64_t out_h, int64_t out_w);

// `table` of `matrix` (theta, six doubles, for the affine tables; H, nine doubles, for
// kPerspectiveTerms) for an out_h x out_w output with align_corners `align` (the affine tables'
// base coordinates): WarpTableFloats floats at `values` and the shader's 4 source floats.
void FillWarpTable(WarpTable table, const double* matrix, int64_t out_h, int64_t out_w, bool align,
                   float* values, float* source);

}  // namespace gridsample

#endif  // GRIDSAMPLE_API_WARP_TABLES_H_
