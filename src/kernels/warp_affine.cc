// Public channels-last entry points (GridSampleChannelsLast, WarpAffine, WarpPerspective,
// Remap, WarpFlowChannelsLast): validate once, then the fast path, else the generic scalar path
// (reference/channels_last_ref.cc).
#include "gridsample/warp_affine.h"

#include "fast/fast.h"
#include "reference/reference.h"
#include "validate.h"

namespace gridsample {

Status GridSampleChannelsLast(const TensorView& x, const TensorView& grid,
                              const MutableTensorView& y, const GridSampleOptions& options) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, "GridSampleChannelsLast");
  if (s.ok()) s = ValidateGridSampleChannelsLast(x, grid, y, &geo);
  if (!s.ok()) return s;
  if (!fast::TryGridSampleChannelsLast(geo, x, grid, y, options)) {
    reference::RunGridSampleChannelsLast(geo, x, grid, y, options);
  }
  return Status::Ok();
}

Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, "WarpAffine");
  if (s.ok()) s = ValidateWarpAffine(x, theta, y, &geo);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, "WarpAffine");
  if (!s.ok()) return s;
  if (!fast::TryWarpAffine(geo, x, theta, y, options, fill)) {
    reference::RunWarpAffine(geo, x, theta, y, options, fill);
  }
  return Status::Ok();
}

Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, "WarpPerspective");
  if (s.ok()) s = ValidateWarpPerspective(x, h, y, &geo);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, "WarpPerspective");
  if (!s.ok()) return s;
  if (!fast::TryWarpPerspective(geo, x, h, y, options, fill)) {
    reference::RunWarpPerspective(geo, x, h, y, options, fill);
  }
  return Status::Ok();
}

namespace {

// Every Remap and WarpFlowChannelsLast signature: map_y null for one interleaved map; `flow`:
// the maps hold offsets from each output pixel.
Status RemapAny(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                const MutableTensorView& y, const GridSampleOptions& options, const double* fill,
                bool flow) {
  const char* op = flow ? "WarpFlowChannelsLast" : "Remap";
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = ValidateRemap(x, map_x, map_y, y, &geo, flow);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, op);
  if (!s.ok()) return s;
  if (!fast::TryRemap(geo, x, map_x, map_y, y, options, fill, flow)) {
    reference::RunRemap(geo, x, map_x, map_y, y, options, fill, flow);
  }
  return Status::Ok();
}

}  // namespace

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  return RemapAny(x, map, nullptr, y, options, fill, false);
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  return RemapAny(x, map_x, &map_y, y, options, fill, false);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                            const GridSampleOptions& options, const double* fill) {
  return RemapAny(x, flow, nullptr, y, options, fill, true);
}

Status WarpFlowChannelsLast(const TensorView& x, const TensorView& flow_x, const TensorView& flow_y,
                            const MutableTensorView& y, const GridSampleOptions& options,
                            const double* fill) {
  return RemapAny(x, flow_x, &flow_y, y, options, fill, true);
}

}  // namespace gridsample
