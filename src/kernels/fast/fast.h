// Internal interface of the SIMD fast paths (Highway): entry points and target control.
#ifndef GRIDSAMPLE_FAST_FAST_H_
#define GRIDSAMPLE_FAST_FAST_H_

#include <cstdint>

#include "gridsample/affine_grid.h"
#include "gridsample/grid_sample.h"
#include "validate.h"

// Calls a HWY_EXPORTed kernel on the chosen target: the one compiled target when cross
// compiling (WASM, NEON; GRIDSAMPLE_STATIC_DISPATCH), else the best one this CPU supports.
// For the HWY_ONCE parts of the kernel files, after hwy/highway.h.
#if GRIDSAMPLE_STATIC_DISPATCH
#define GRIDSAMPLE_DISPATCH(fn) HWY_STATIC_DISPATCH(fn)
#else
#define GRIDSAMPLE_DISPATCH(fn) HWY_DYNAMIC_DISPATCH(fn)
#endif

namespace gridsample {
namespace fast {

// Runs GridSample on a fast path when one covers the problem (dtype, rank, sizes);
// returns false, having written nothing, when the caller must use the reference.
bool GridSample(const GridSampleGeometry& geometry, const TensorView& x, const TensorView& grid,
                const MutableTensorView& y, const GridSampleOptions& options);

// Channels-last 2-D GridSample (X uint8 or float32 with 1 to 4 channels, float32 grid) on a
// fast path; false, having written nothing, when the caller must use the generic path.
bool GridSampleChannelsLast(const ChannelsLastGeometry& geometry, const TensorView& x,
                            const TensorView& grid, const MutableTensorView& y,
                            const GridSampleOptions& options);

// The fused affine warp on a fast path (X as above, theta float32 or float64); false, having
// written nothing, when the caller must use the generic path.
bool WarpAffine(const ChannelsLastGeometry& geometry, const TensorView& x, const TensorView& theta,
                const MutableTensorView& y, const GridSampleOptions& options);

// AffineGrid for float32 and float64 theta, equal to the reference bit for bit; false,
// having written nothing, for the other dtypes.
bool AffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                const MutableTensorView& grid, const AffineGridOptions& options);

// Name of the Highway target that dispatch picks now ("AVX2", "WASM", "NEON", ...).
const char* TargetName();

}  // namespace fast
}  // namespace gridsample

#endif  // GRIDSAMPLE_FAST_FAST_H_
