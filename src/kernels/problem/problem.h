// One validated sampling call as a value: its layout (NCHW planes or interleaved pixels), the
// coordinate source it samples at (one type per source), geometry, options and fill. The public
// functions build one after validation; Run (api/run.h) hands it to the fast path or the
// reference, and the tests hand the same value to each.
#ifndef GRIDSAMPLE_PROBLEM_PROBLEM_H_
#define GRIDSAMPLE_PROBLEM_PROBLEM_H_

#include <cstddef>
#include <variant>

#include "gridsample/grid_sample.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "problem/geometry.h"

namespace gridsample {

// The coordinate sources, by what a call passes (sources/ holds each one's vector form,
// reference/ its scalar form).

// Normalised coordinates of any float dtype, innermost axis first: (N, O1..Or, r) for planes,
// (N, Ho, Wo, 2) for pixels (GridSample, GridSampleChannelsLast).
struct GridAt {
  TensorView grid;
};
// WarpFlow's float32 (N, 2, Ho, Wo): pixel offsets dx then dy from each output pixel.
struct FlowAt {
  TensorView flow;
};
// WarpAffine's theta (N, 2, 3), float32 or float64: AffineGrid's coordinates of each pixel.
struct AffineAt {
  TensorView theta;
};
// WarpPerspective's H (N, 3, 3), float32 or float64: pixel positions (rules/perspective_rule.h).
struct PerspectiveAt {
  TensorView h;
};
// Remap's float32 pixel positions: one (N, Ho, Wo, 2) map of (x, y) pairs, or two (N, Ho, Wo)
// planes.
struct MapPairsAt {
  TensorView map;
};
struct MapPlanesAt {
  TensorView map_x, map_y;
};
// WarpFlowChannelsLast's float32 offsets from each output pixel, laid out as Remap's maps.
struct FlowPairsAt {
  TensorView flow;
};
struct FlowPlanesAt {
  TensorView flow_x, flow_y;
};

// NCHW: X (N, C, D1..Dr) -> Y (N, C, O1..Or), of X's dtype.
struct PlanesProblem {
  using Source = std::variant<GridAt, FlowAt>;
  GridSampleGeometry geometry;
  TensorView x;
  Source source;
  MutableTensorView y;
  GridSampleOptions options;
};

// Channels-last: X (N, H, W, C) -> rows [row0, row0 + rows) of Y (N, Ho, Wo, C), of X's dtype.
struct PixelsProblem {
  using Source = std::variant<GridAt, AffineAt, PerspectiveAt, MapPairsAt, MapPlanesAt, FlowPairsAt,
                              FlowPlanesAt>;
  ChannelsLastGeometry geometry;
  TensorView x;
  Source source;
  MutableTensorView y;
  GridSampleOptions options;
  // Zeros padding's colour (C values; warp_affine.h), or null where the call passes none: a tap
  // outside X then reads 0. The reference reads the colour or 0 alike; the fast blend leaves the
  // zero colour's terms out, which gives the same sums (they start at +0) for a multiply-add fewer
  // per pixel.
  const double* fill = nullptr;
};

// Multi-scale deformable attention: value [N, S, M, D] sampled (bilinear or discrete) at sampling
// locations [N, Lq, M, sum(P_l), 2] of each level, weighted by attention weights
// [N, Lq, M, sum(P_l)] and summed into y [N, Lq, M * D] of the value's dtype.
struct DeformableAttentionProblem {
  DeformableAttentionGeometry geometry;
  TensorView value, locations, weights;
  MutableTensorView y;
  Threads threads;
  DeformableSampling sampling = DeformableSampling::kBilinear;
};

// The visitor of a source from one lambda per type: Visit(problem.source, Overloaded{...}).
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// f(the source `source` holds), as std::visit calls it, without std::visit's table and
// exception paths (smaller in wasm).
template <size_t I = 0, class Variant, class F>
auto Visit(const Variant& source, const F& f) {
  if constexpr (I + 1 < std::variant_size_v<Variant>) {
    if (source.index() != I) return Visit<I + 1>(source, f);
  }
  return f(*std::get_if<I>(&source));
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_PROBLEM_PROBLEM_H_
