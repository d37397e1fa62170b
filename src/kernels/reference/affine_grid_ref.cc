// Scalar reference AffineGrid (2-D and 3-D), as PyTorch's affine_grid, computed in
// double and rounded once to the output type.
#include <cstdint>
#include <type_traits>

#include "reference/reference.h"
#include "rules/affine_base.h"
#include "rules/dtype_traits.h"

namespace gridsample {
namespace reference {
namespace {

// The double result rounded once to T (16-bit floats via round-to-odd float).
template <typename T>
T RoundOnce(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return DTypeTraits<T>::Store(DoubleToFloatRoundToOdd(v));
  } else {
    return DTypeTraits<T>::Store(static_cast<typename DTypeTraits<T>::Compute>(v));
  }
}

template <typename T>
void Run(const AffineGridGeometry& geo, const T* theta, T* grid, bool align_corners) {
  const int r = geo.rank;
  for (int64_t n = 0; n < geo.n; ++n) {
    double th[3][4];
    for (int i = 0; i < r; ++i) {
      for (int j = 0; j <= r; ++j) {
        th[i][j] = static_cast<double>(DTypeTraits<T>::Load(theta + (n * r + i) * (r + 1) + j));
      }
    }
    int64_t pos[3] = {};  // spatial position, outermost axis first
    for (int64_t p = 0; p < geo.points; ++p) {
      // Homogeneous base point, innermost axis first: (x, y[, z], 1).
      double base[4];
      for (int j = 0; j < r; ++j) {
        const int axis = r - 1 - j;
        base[j] = AffineBaseCoordinate(pos[axis], geo.spatial[axis], align_corners);
      }
      base[r] = 1.0;
      T* out = grid + (n * geo.points + p) * r;
      for (int i = 0; i < r; ++i) out[i] = RoundOnce<T>(AffineValue(th[i], base, r));
      for (int a = r - 1; a >= 0 && ++pos[a] == geo.spatial[a]; --a) pos[a] = 0;
    }
  }
}

}  // namespace

void RunAffineGrid(const AffineGridGeometry& geometry, const TensorView& theta,
                   const MutableTensorView& grid, const AffineGridOptions& options) {
  VisitFloatDType(theta.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Run<T>(geometry, static_cast<const T*>(theta.data), static_cast<T*>(grid.data),
           options.align_corners);
  });
}

}  // namespace reference
}  // namespace gridsample
