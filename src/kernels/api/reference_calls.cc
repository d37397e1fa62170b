// The reference's public-contract calls (api/reference_calls.h): each validates as its public
// function does, then runs the scalar reference on the problem (reference/reference.h).
#include "api/reference_calls.h"

#include "api/validation.h"
#include "reference/reference.h"

namespace gridsample {
namespace reference {

Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options) {
  GridSampleGeometry geometry;
  Status s = ValidateGridSampleOptions(options);
  if (s.ok()) s = ValidateGridSample(x, grid, y, &geometry);
  if (s.ok()) Run(PlanesProblem{geometry, x, GridAt{grid}, y, options});
  return s;
}

Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options) {
  GridSampleGeometry geometry;
  Status s = ValidateGridSampleOptions(options, "WarpFlow");
  if (s.ok()) s = ValidateWarpFlow(x, flow, y, &geometry);
  if (s.ok()) Run(PlanesProblem{geometry, x, FlowAt{flow}, y, options});
  return s;
}

Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geometry;
  const Status s = ValidateRemapCall(kRemapMaps, x, &map, 1, y, options, fill, &geometry);
  if (s.ok()) Run(PixelsProblem{geometry, x, MapPairsAt{map}, y, options, fill});
  return s;
}

Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options, const double* fill) {
  ChannelsLastGeometry geometry;
  const TensorView maps[2] = {map_x, map_y};
  const Status s = ValidateRemapCall(kRemapMaps, x, maps, 2, y, options, fill, &geometry);
  if (s.ok()) Run(PixelsProblem{geometry, x, MapPlanesAt{map_x, map_y}, y, options, fill});
  return s;
}

Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options) {
  AffineGridGeometry geometry;
  Status s = ValidateAffineGrid(theta, size, size_len, grid, &geometry);
  if (s.ok()) RunAffineGrid(geometry, theta, grid, options);
  return s;
}

Status MultiScaleDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                     const TensorView& sampling_locations,
                                     const TensorView& attention_weights,
                                     const MutableTensorView& y,
                                     const MultiScaleDeformableAttentionOptions& options) {
  DeformableAttentionGeometry geometry;
  Status s = ValidateDeformableAttentionCall(value, levels, sampling_locations, attention_weights,
                                             y, options, &geometry);
  if (s.ok()) {
    Run(DeformableAttentionProblem{geometry, value, sampling_locations, attention_weights, y,
                                   options.threads, options.sampling});
  }
  return s;
}

}  // namespace reference
}  // namespace gridsample
