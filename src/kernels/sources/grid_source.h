// The grid tensor as a coordinate source, scalar form (the references read it through
// reference/points.h; grid_source-inl.h is the vector form the fast paths plan from).
#ifndef GRIDSAMPLE_SOURCES_GRID_SOURCE_H_
#define GRIDSAMPLE_SOURCES_GRID_SOURCE_H_

#include <cstdint>

#include "gridsample/types.h"
#include "problem/problem.h"
#include "rules/dtype_traits.h"

namespace gridsample {

// The coordinates of output points [p0, p0 + count) of batch item n from a grid (N, points, r)
// of any float dtype, r per point, outermost axis first: the grid lists them innermost first,
// so axis a reads component r - 1 - a. Normalised.
inline void GridPoints(const TensorView& grid, int r, int64_t points, int64_t n, int64_t p0,
                       int64_t count, double* coords) {
  VisitFloatDType(grid.dtype, [&](auto tag) {
    using TG = typename decltype(tag)::type;
    const TG* g = static_cast<const TG*>(grid.data) + (n * points + p0) * r;
    for (int64_t k = 0; k < count; ++k) {
      for (int a = 0; a < r; ++a) {
        coords[k * r + a] = static_cast<double>(DTypeTraits<TG>::Load(g + k * r + (r - 1 - a)));
      }
    }
  });
}

// What the channels-last kernels read of it (drivers/pixels_driver.cc's Covers): float32.
inline bool PixelsKernelTakes(const ChannelsLastGeometry&, const GridAt& s) {
  return s.grid.dtype == DType::kFloat32;
}

// What the planes kernels read of it (drivers/planes_driver.cc): the grid, of any float dtype
// (converted to float32 first), the call's rank values per output point.
inline bool PlanesKernelTakes(const GridSampleGeometry&, const GridAt&) { return true; }
inline const TensorView& CoordinatesOf(const GridAt& s) { return s.grid; }
inline int64_t CoordinatesPerPoint(const GridSampleGeometry& geo, const GridAt&) {
  return geo.rank;
}

}  // namespace gridsample

#endif  // GRIDSAMPLE_SOURCES_GRID_SOURCE_H_
