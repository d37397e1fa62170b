// The checks of the channels-last calls (GridSampleChannelsLast, the warps, Remap,
// WarpFlowChannelsLast): X (N, H, W, C), the pixel maps, and the output they size.
#ifndef GRIDSAMPLE_PROBLEM_CHANNELS_LAST_CHECKS_H_
#define GRIDSAMPLE_PROBLEM_CHANNELS_LAST_CHECKS_H_

#include <cstdint>

#include "problem/checks.h"

namespace gridsample {

// X of a channels-last call: rank 4 (N, H, W, C), a known dtype (CheckInput).
Status CheckChannelsLastX(const char* op, const TensorView& x, int64_t* x_count);

// Y's shape `y_shape` (N, Ho, Wo, C) against X: its size fits, X is not empty when Y is not;
// fills `geometry` with the whole output (no band).
Status ChannelsLastOutput(const char* op, const TensorView& x, int64_t x_count,
                          const int64_t* y_shape, ChannelsLastGeometry* geometry);

// How a call names its pixel maps in messages: Remap's positions, WarpFlowChannelsLast's offsets.
struct MapNames {
  const char* op;
  const char* pairs;      // one map of (x, y) pairs (N, Ho, Wo, 2): "map"
  const char* planes[2];  // the planes (N, Ho, Wo) of x and of y: "map_x", "map_y"
  const char* values;     // what they hold: "pixel coordinates"
};
extern const MapNames kRemapMaps, kFlowMaps;

// The pixel maps of a call: `count` of them (1: pairs, 2: planes), float32 of the shape
// their layout asks with X's N; the planes alike. Fills each element count (data: CheckData).
Status CheckMaps(const MapNames& names, const TensorView& x, const TensorView* maps, int count,
                 int64_t* counts);

}  // namespace gridsample

#endif  // GRIDSAMPLE_PROBLEM_CHANNELS_LAST_CHECKS_H_
