// Public channels-last entry points (GridSampleChannelsLast, WarpAffine, WarpPerspective and
// their bands, Remap, WarpFlowChannelsLast): validate once, then the fast path, else the generic
// scalar path (reference/channels_last_ref.cc).
#include "gridsample/warp_affine.h"

#include "fast/fast.h"
#include "reference/reference.h"
#include "validate.h"

namespace gridsample {

bool ChannelsLastFoldsTaps(int64_t height, int64_t width, int64_t channels, DType dtype,
                           Mode mode) {
  if (height <= 0 || width <= 0 || channels <= 0) return false;
  ChannelsLastGeometry geo;
  geo.n = 1;
  geo.c = channels;
  geo.in_h = height;
  geo.in_w = width;
  GridSampleOptions options;
  options.mode = mode;
  return fast::TargetHasChannelsLast() && fast::CoversChannelsLast(geo, dtype, options);
}

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

namespace {

// WarpAffine and WarpPerspective, of the whole output (rows null) or of a band.
template <Status (*kValidate)(const TensorView&, const TensorView&, const MutableTensorView&,
                              ChannelsLastGeometry*),
          bool (*kTry)(const ChannelsLastGeometry&, const TensorView&, const TensorView&,
                       const MutableTensorView&, const GridSampleOptions&, const double*),
          void (*kReference)(const ChannelsLastGeometry&, const TensorView&, const TensorView&,
                             const MutableTensorView&, const GridSampleOptions&, const double*)>
Status Warp(const char* op, const TensorView& x, const TensorView& m, const MutableTensorView& y,
            const OutputRows* rows, const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geo;
  Status s = ValidateGridSampleOptions(options, op);
  if (s.ok()) s = kValidate(x, m, y, &geo);
  if (s.ok() && rows) s = ValidateOutputRows(op, *rows, &geo);
  if (s.ok()) s = ValidateFill(options, fill, x.dtype, geo.c, op);
  if (!s.ok()) return s;
  if (!kTry(geo, x, m, y, options, fill)) kReference(geo, x, m, y, options, fill);
  return Status::Ok();
}

constexpr auto kWarpAffine =
    Warp<ValidateWarpAffine, fast::TryWarpAffine, reference::RunWarpAffine>;
constexpr auto kWarpPerspective =
    Warp<ValidateWarpPerspective, fast::TryWarpPerspective, reference::RunWarpPerspective>;

}  // namespace

Status WarpAffine(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                  const GridSampleOptions& options, const double* fill) {
  return kWarpAffine("WarpAffine", x, theta, y, nullptr, options, fill);
}

Status WarpAffineRows(const TensorView& x, const TensorView& theta, const MutableTensorView& y,
                      const OutputRows& rows, const GridSampleOptions& options,
                      const double* fill) {
  return kWarpAffine("WarpAffineRows", x, theta, y, &rows, options, fill);
}

Status WarpPerspective(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                       const GridSampleOptions& options, const double* fill) {
  return kWarpPerspective("WarpPerspective", x, h, y, nullptr, options, fill);
}

Status WarpPerspectiveRows(const TensorView& x, const TensorView& h, const MutableTensorView& y,
                           const OutputRows& rows, const GridSampleOptions& options,
                           const double* fill) {
  return kWarpPerspective("WarpPerspectiveRows", x, h, y, &rows, options, fill);
}

namespace {

// Every Remap and WarpFlowChannelsLast signature: map_y null for one interleaved map; `flow`:
// the maps hold offsets from each output pixel.
Status RemapAny(const TensorView& x, const TensorView& map_x, const TensorView* map_y,
                const MutableTensorView& y, const GridSampleOptions& options, const double* fill,
                bool flow) {
  ChannelsLastGeometry geo;
  const Status s = ValidateRemapCall(x, map_x, map_y, y, options, fill, flow, &geo);
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
