// embind registration of AffineGrid: its call and its output-shape query.
#include <emscripten/bind.h>

#include <cstdint>

#include "gridsample/affine_grid.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::ModuleThreads;
using bindings::Shape;
using bindings::ToCallStatus;

int AffineGridAdapter(uintptr_t theta, int dtype, uintptr_t theta_shape, int theta_rank,
                      uintptr_t size, int size_len, uintptr_t grid, uintptr_t grid_shape,
                      bool align_corners) {
  const size_t n = static_cast<size_t>(size_len);
  AffineGridOptions options;
  options.align_corners = align_corners;
  options.threads = ModuleThreads();
  return ToCallStatus(AffineGrid(
      {reinterpret_cast<const void*>(theta), static_cast<DType>(dtype), Shape(theta_shape),
       static_cast<size_t>(theta_rank)},
      Shape(size), n,
      {reinterpret_cast<void*>(grid), static_cast<DType>(dtype), Shape(grid_shape), n}, options));
}

int AffineGridOutputShapeAdapter(uintptr_t size, int size_len, uintptr_t grid_shape) {
  return ToCallStatus(AffineGridOutputShape(Shape(size), static_cast<size_t>(size_len),
                                            reinterpret_cast<int64_t*>(grid_shape)));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_affine_grid) {
  using namespace emscripten;
  using namespace gridsample;
  function("affineGrid", &AffineGridAdapter);
  function("affineGridOutputShape", &AffineGridOutputShapeAdapter);
}
