// The public entry points that sample at pixel maps (warp_affine.h, warp_flow.h): Remap's
// positions and WarpFlowChannelsLast's offsets, as one map of pairs or two planes, and their
// argument rule: validate once, then the fast path, else the generic scalar path.
#include <string>

#include "api/run.h"
#include "api/validation.h"
#include "gridsample/warp_affine.h"
#include "gridsample/warp_flow.h"

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

// Every Remap and WarpFlowChannelsLast signature: `count` maps named as `names` says, sampled
// at as `source` (of its own type: each signature reaches its source's kernels alone).
template <class At>
Status SampleAtMaps(const MapNames& names, const At& source, const TensorView& x,
                    const TensorView* maps, int count, const MutableTensorView& y,
                    const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  const Status s = ValidateRemapCall(names, x, maps, count, y, options, fill, &geo);
  if (!s.ok()) return s;
  RunFrom<At>(PixelsProblem{geo, x, source, y, options, fill});
  return Status::Ok();
}

}  // namespace

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kRemapMaps, MapPairsAt{map}, x, &map, 1, y, options, fill);
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  const TensorView maps[2] = {map_x, map_y};
  return SampleAtMaps(kRemapMaps, MapPlanesAt{map_x, map_y}, x, maps, 2, y, options, fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                            const GridSampleOptions& options, const double* fill) {
  return SampleAtMaps(kFlowMaps, FlowPairsAt{flow}, x, &flow, 1, y, options, fill);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x, const TensorView& flow_y,
                            const MutableTensorView& y, const GridSampleOptions& options,
                            const double* fill) {
  const TensorView maps[2] = {flow_x, flow_y};
  return SampleAtMaps(kFlowMaps, FlowPlanesAt{flow_x, flow_y}, x, maps, 2, y, options, fill);
}

}  // namespace gridsample
