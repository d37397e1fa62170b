// Pixel maps as a coordinate source, scalar form: Remap's positions, WarpFlowChannelsLast's and
// WarpFlow's offsets (the references read them through reference/points.h; map_source-inl.h and
// flow_source-inl.h are the vector forms the fast paths plan from).
#ifndef GRIDSAMPLE_SOURCES_MAP_SOURCE_H_
#define GRIDSAMPLE_SOURCES_MAP_SOURCE_H_

#include <cstdint>

#include "planner/limits.h"
#include "problem/problem.h"
#include "rules/pixel_rule.h"

namespace gridsample {

// float32 maps: output point p of batch item n has its x at x[n * item + p * step] and its y at
// y[...] alike. One map of (x, y) pairs: step 2; two planes: step 1; WarpFlow's (N, 2, Ho, Wo):
// two planes whose items are 2 Ho Wo apart.
struct PixelMaps {
  const float* x;
  const float* y;
  int64_t item, step;

  // One map of `points` (x, y) pairs per item, or two planes, x then y.
  static PixelMaps Pairs(const float* map, int64_t points) {
    return {map, map ? map + 1 : nullptr, 2 * points, 2};
  }
  static PixelMaps Planes(const float* x, const float* y, int64_t points) {
    return {x, y, points, 1};
  }
};

// Positions (kOffsets false) or offsets from each point's column and row (pixel_rule.h's
// FlowPosition) for points [p0, p0 + count) of item n of an output out_w wide, as (y, x).
// Pixels.
template <bool kOffsets>
inline void MapPoints(const PixelMaps& m, int64_t out_w, int64_t n, int64_t p0, int64_t count,
                      double* coords) {
  for (int64_t k = 0; k < count; ++k) {
    const int64_t at = n * m.item + (p0 + k) * m.step;
    float x = m.x[at], y = m.y[at];
    if constexpr (kOffsets) {
      x = FlowPosition((p0 + k) % out_w, x);
      y = FlowPosition((p0 + k) / out_w, y);
    }
    coords[2 * k] = static_cast<double>(y);
    coords[2 * k + 1] = static_cast<double>(x);
  }
}

// What the channels-last kernels read of them (drivers/pixels_driver.cc's Covers): float32 maps
// by their rule; a flow's output rows and columns as exact int32 lanes.
inline bool PixelsKernelTakes(const ChannelsLastGeometry&, const MapPairsAt&) { return true; }
inline bool PixelsKernelTakes(const ChannelsLastGeometry&, const MapPlanesAt&) { return true; }
inline bool FlowKernelTakes(const ChannelsLastGeometry& geo) {
  return geo.out_w < fast::kMaxFlowSide && geo.out_h < fast::kMaxFlowSide;
}
inline bool PixelsKernelTakes(const ChannelsLastGeometry& geo, const FlowPairsAt&) {
  return FlowKernelTakes(geo);
}
inline bool PixelsKernelTakes(const ChannelsLastGeometry& geo, const FlowPlanesAt&) {
  return FlowKernelTakes(geo);
}

// What the planes kernels read of WarpFlow's flow (drivers/planes_driver.cc): two float32
// offsets per output point, its rows and columns exact int32 lanes.
inline bool PlanesKernelTakes(const GridSampleGeometry& geo, const FlowAt&) {
  return geo.out[0] < fast::kMaxFlowSide && geo.out[1] < fast::kMaxFlowSide;
}
inline const TensorView& CoordinatesOf(const FlowAt& s) { return s.flow; }
inline int64_t CoordinatesPerPoint(const GridSampleGeometry&, const FlowAt&) { return 2; }

}  // namespace gridsample

#endif  // GRIDSAMPLE_SOURCES_MAP_SOURCE_H_
