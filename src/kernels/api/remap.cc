// The public entry points that sample at pixel maps (warp_affine.h, warp_flow.h): Remap's
// positions and WarpFlowChannelsLast's offsets, as one map of pairs or two planes, and their
// argument rule: validate once, then the fast path, else the generic scalar path.
#include <string>

#include "api/validation.h"
#include "drivers/fast.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"
#include "reference/reference.h"

namespace gridsample {

Status ValidateRemap(const MapNames& names, const TensorView& x, const TensorView* maps, int count,
                     const MutableTensorView& y, ChannelsLastGeometry* geometry) {
  int64_t x_count = 0;
  Status s = CheckChannelsLastX(names.op, x, &x_count);
  if (!s.ok()) return s;
  int64_t counts[2] = {0, 0};
  s = CheckMaps(names, x, maps, count, counts);
  if (!s.ok()) return s;
  const int64_t y_shape[4] = {x.shape[0], maps[0].shape[1], maps[0].shape[2], x.shape[3]};
  s = ChannelsLastOutput(names.op, x, x_count, y_shape, geometry);
  if (s.ok()) s = CheckData(names.op, "X", x);
  for (int k = 0; s.ok() && k < count; ++k) {
    s = CheckData(names.op, count == 2 ? names.planes[k] : names.pairs, maps[k]);
  }
  if (!s.ok()) return s;
  if (count == 2) {
    return CheckOutput(names.op, "Y", y, x.dtype, y_shape, 4,
                       {{x, x_count}, {maps[0], counts[0]}, {maps[1], counts[1]}});
  }
  return CheckOutput(names.op, "Y", y, x.dtype, y_shape, 4, {{x, x_count}, {maps[0], counts[0]}});
}

Status ValidateRemapCall(const MapNames& names, const TensorView& x, const TensorView* maps,
                         int count, const MutableTensorView& y, const GridSampleOptions& options,
                         const double* fill, ChannelsLastGeometry* geometry) {
  Status s = ValidateGridSampleOptions(options, names.op);
  if (s.ok()) s = ValidateRemap(names, x, maps, count, y, geometry);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geometry->c, names.op);
  return s;
}

namespace {

// The paths of one kind and layout of maps: `count` maps (1: pairs, 2: planes), the fast path
// that reads them (drivers/fast.h) and the generic one (reference/reference.h).
using FastRun = fast::MapsPath*;
using GenericRun = void (*)(const ChannelsLastGeometry&, const TensorView&, const TensorView*, int,
                            const MutableTensorView&, const GridSampleOptions&, const double*);

// Every Remap and WarpFlowChannelsLast signature, its maps named as `names` says.
Status SampleAtMaps(const MapNames& names, FastRun fast, GenericRun generic, const TensorView& x,
                    const TensorView* maps, int count, const MutableTensorView& y,
                    const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  const Status s = ValidateRemapCall(names, x, maps, count, y, options, fill, &geo);
  if (!s.ok()) return s;
  if (!fast(geo, x, maps, y, options, fill)) generic(geo, x, maps, count, y, options, fill);
  return Status::Ok();
}

}  // namespace

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kRemapMaps, fast::TryRemapPairs, reference::RunRemap, x, &map, 1, y, options,
                      fill);
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  const TensorView maps[2] = {map_x, map_y};
  return SampleAtMaps(kRemapMaps, fast::TryRemapPlanes, reference::RunRemap, x, maps, 2, y, options,
                      fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                            const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kFlowMaps, fast::TryWarpFlowChannelsLastPairs,
                      reference::RunWarpFlowChannelsLast, x, &flow, 1, y, options, fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x, const TensorView& flow_y,
                            const MutableTensorView& y, const GridSampleOptions& options,
                            const double* fill) {
  const TensorView maps[2] = {flow_x, flow_y};
  return SampleAtMaps(kFlowMaps, fast::TryWarpFlowChannelsLastPlanes,
                      reference::RunWarpFlowChannelsLast, x, maps, 2, y, options, fill);
}

}  // namespace gridsample
