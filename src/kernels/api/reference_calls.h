// The scalar reference behind each operator's public contract, validation included: the oracle
// the tests compare every fast path with (the kernels themselves: reference/reference.h).
#ifndef GRIDSAMPLE_API_REFERENCE_CALLS_H_
#define GRIDSAMPLE_API_REFERENCE_CALLS_H_

#include <cstddef>
#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "reference/reference.h"

namespace gridsample {
namespace reference {

// Same contract as gridsample::GridSample (validation included), always computed
// by the plain scalar reference written from DESIGN.md section 2.
Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options = {});

// Same contract as gridsample::AffineGrid, always the scalar reference.
Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options = {});

// Same contracts as gridsample::WarpFlow and both gridsample::Remap, always the scalar
// reference: the pixel-coordinate oracle.
Status WarpFlow(const TensorView& x, const TensorView& flow, const MutableTensorView& y,
                const GridSampleOptions& options = {});
Status Remap(const TensorView& x, const TensorView& map, const MutableTensorView& y,
             const GridSampleOptions& options = {}, const double* fill = nullptr);
Status Remap(const TensorView& x, const TensorView& map_x, const TensorView& map_y,
             const MutableTensorView& y, const GridSampleOptions& options = {},
             const double* fill = nullptr);

// Same contract as gridsample::MultiScaleDeformableAttention, always the scalar reference
// (reference/deformable_attention_ref.cc).
Status MultiScaleDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                     const TensorView& sampling_locations,
                                     const TensorView& attention_weights,
                                     const MutableTensorView& y,
                                     const MultiScaleDeformableAttentionOptions& options = {});

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_API_REFERENCE_CALLS_H_
