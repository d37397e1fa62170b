// embind registration of MultiScaleDeformableAttention: its call and its output-shape query.
#include <emscripten/bind.h>

#include <cstdint>

#include "api/validation.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "module_state.h"

namespace gridsample {
namespace {

using bindings::ModuleThreads;
using bindings::Shape;
using bindings::ToCallStatus;

// A tensor argument: heap addresses of its data (0 for a shape query) and int64 shape.
TensorView View(uintptr_t data, int dtype, uintptr_t shape, int rank) {
  return {reinterpret_cast<const void*>(data), static_cast<DType>(dtype), Shape(shape),
          static_cast<size_t>(rank)};
}

// The levels as js/core/deformable_levels.mjs writes them: `count` (H, W) pairs, `count` starts,
// then, where `listed` is nonzero, `count` points per level; all int64 (the library checks
// their values).
DeformableLevels Levels(uintptr_t levels, int count, int listed) {
  const int64_t n = count < 0 ? 0 : count;
  DeformableLevels l;
  l.spatial_shapes = Shape(levels);
  l.level_start_index = Shape(levels) + 2 * n;
  l.points_per_level = listed != 0 ? Shape(levels) + 3 * n : nullptr;
  l.count = count;
  return l;
}

// y [N, Lq, M * D] of value's dtype written at y_shape, or the library's error on the inputs'
// shapes and dtypes (their data is not looked at).
int OutputShapeAdapter(uintptr_t value_shape, int value_rank, int value_dtype, uintptr_t levels,
                       int level_count, int points_listed, uintptr_t locations_shape,
                       int locations_rank, int locations_dtype, uintptr_t weights_shape,
                       int weights_rank, int weights_dtype, uintptr_t y_shape) {
  const TensorView value = View(0, value_dtype, value_shape, value_rank);
  const TensorView locations = View(0, locations_dtype, locations_shape, locations_rank);
  const TensorView weights = View(0, weights_dtype, weights_shape, weights_rank);
  const DeformableLevels l = Levels(levels, level_count, points_listed);
  DeformableAttentionGeometry geometry;
  const Status s = ValidateDeformableAttentionInputs(value, l, locations, weights, &geometry);
  if (s.ok()) DeformableAttentionOutputShape(geometry, reinterpret_cast<int64_t*>(y_shape));
  return ToCallStatus(s);
}

// The sampling code the JS layer passes (the library checks it) and the module's threads.
MultiScaleDeformableAttentionOptions Options(int sampling) {
  MultiScaleDeformableAttentionOptions options;
  options.threads = ModuleThreads();
  options.sampling = static_cast<DeformableSampling>(sampling);
  return options;
}

// y (of value's dtype, shape [N, Lq, M * D] at y_shape) from the tensors and levels above;
// `sampling` is DeformableSampling's code (0 bilinear, 1 discrete).
int CallAdapter(uintptr_t value, int value_dtype, uintptr_t value_shape, int value_rank,
                uintptr_t levels, int level_count, int points_listed, uintptr_t locations,
                int locations_dtype, uintptr_t locations_shape, int locations_rank,
                uintptr_t weights, int weights_dtype, uintptr_t weights_shape, int weights_rank,
                uintptr_t y, uintptr_t y_shape, int sampling) {
  const MutableTensorView out{reinterpret_cast<void*>(y), static_cast<DType>(value_dtype),
                              Shape(y_shape), 3};
  return ToCallStatus(MultiScaleDeformableAttention(
      View(value, value_dtype, value_shape, value_rank), Levels(levels, level_count, points_listed),
      View(locations, locations_dtype, locations_shape, locations_rank),
      View(weights, weights_dtype, weights_shape, weights_rank), out, Options(sampling)));
}

}  // namespace
}  // namespace gridsample

EMSCRIPTEN_BINDINGS(gridsample_deformable_attention) {
  using namespace emscripten;
  using namespace gridsample;
  function("multiScaleDeformableAttention", &CallAdapter);
  function("multiScaleDeformableAttentionOutputShape", &OutputShapeAdapter);
}
