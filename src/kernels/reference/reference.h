// Scalar reference kernels: the oracle every fast path is tested against.
#ifndef GRIDSAMPLE_REFERENCE_REFERENCE_H_
#define GRIDSAMPLE_REFERENCE_REFERENCE_H_

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "validate.h"

namespace gridsample {
namespace reference {

// Same contract as gridsample::GridSample (validation included), always computed
// by the plain scalar reference written from DESIGN.md section 2.
Status GridSample(const TensorView& x, const TensorView& grid, const MutableTensorView& y,
                  const GridSampleOptions& options = {});

// Same contract as gridsample::AffineGrid, always the scalar reference.
Status AffineGrid(const TensorView& theta, const int64_t* size, size_t size_len,
                  const MutableTensorView& grid, const AffineGridOptions& options = {});

// The kernels behind those calls, for an already validated problem.
void RunGridSample(const GridSampleGeometry& geometry, const TensorView& x,
                   const TensorView& grid, const MutableTensorView& y,
                   const GridSampleOptions& options);
void RunAffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options);

}  // namespace reference
}  // namespace gridsample

#endif  // GRIDSAMPLE_REFERENCE_REFERENCE_H_
