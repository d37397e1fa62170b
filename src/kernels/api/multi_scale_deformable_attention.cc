// MultiScaleDeformableAttention's public entry points (multi_scale_deformable_attention.h) and
// its argument rule: validate once, then run the best available kernel.
#include "gridsample/multi_scale_deformable_attention.h"

#include <cstdint>
#include <limits>
#include <string>

#include "api/run.h"
#include "api/validation.h"

namespace gridsample {
namespace {

constexpr const char* kOp = "MultiScaleDeformableAttention";

std::string Str(int64_t v) { return std::to_string(v); }

// "value: expected rank 4 [N, S, M, D], got rank 3 shape [1, 2, 3]".
Status RankError(const char* name, const char* layout, size_t want, const TensorView& t) {
  return Invalid(kOp, std::string(name) + ": expected rank " + std::to_string(want) + " " + layout +
                          ", got rank " + std::to_string(t.rank) +
                          (t.shape ? " shape " + ShapeString(t.shape, t.rank) : std::string()));
}

// Every input is read in float32: float32 itself, or float16 or bfloat16 storage.
Status CheckDType(const char* name, DType dtype) {
  if (dtype == DType::kFloat32 || dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
    return Status::Ok();
  }
  return Invalid(kOp, std::string(name) + ": expected dtype float32, float16 or bfloat16, got " +
                          DTypeString(dtype));
}

// The levels: at least one, each H and W >= 1, starts the running sum of H * W, which must fit
// int64 (also where it is not reached: S itself is checked against it). Sets geometry's levels
// and returns their total rows in *total.
Status CheckLevels(const DeformableLevels& levels, DeformableAttentionGeometry* geometry,
                   int64_t* total) {
  if (levels.count < 1) {
    return Invalid(kOp,
                   "levels: expected at least one level (L >= 1), got L = " + Str(levels.count));
  }
  if (levels.spatial_shapes == nullptr || levels.level_start_index == nullptr) {
    return Invalid(kOp, std::string("levels: ") +
                            (levels.spatial_shapes ? "level_start_index" : "spatial_shapes") +
                            " pointer is null for L = " + Str(levels.count));
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t sum = 0;
  for (int64_t l = 0; l < levels.count; ++l) {
    const int64_t h = levels.spatial_shapes[2 * l], w = levels.spatial_shapes[2 * l + 1];
    const std::string hw = "[" + Str(h) + ", " + Str(w) + "]";
    if (h < 1 || w < 1) {
      return Invalid(kOp, "spatial_shapes: expected H >= 1 and W >= 1 for every level, got " + hw +
                              " for level " + Str(l));
    }
    if (h > kMax / w || h * w > kMax - sum) {
      return Status::OutOfRange(std::string(kOp) + ": spatial_shapes: the levels' H * W add up " +
                                "to more than int64 holds at level " + Str(l) + " " + hw);
    }
    if (levels.level_start_index[l] != sum) {
      return Invalid(kOp, "level_start_index: expected " + Str(sum) + " for level " + Str(l) +
                              " (the sum of H * W of the levels before it), got " +
                              Str(levels.level_start_index[l]));
    }
    sum += h * w;
  }
  geometry->levels = levels.count;
  geometry->shapes = levels.spatial_shapes;
  geometry->starts = levels.level_start_index;
  *total = sum;
  return Status::Ok();
}

// The output's shape [N, Lq, M * D] for a validated geometry.
void OutputShape(const DeformableAttentionGeometry& g, int64_t* y_shape) {
  y_shape[0] = g.n;
  y_shape[1] = g.queries;
  y_shape[2] = g.heads * g.channels;
}

}  // namespace

template <Given kGiven>
Status ValidateDeformableAttentionInputs(const TensorView& value, const DeformableLevels& levels,
                                         const TensorView& locations, const TensorView& weights,
                                         DeformableAttentionGeometry* geometry) {
  if (value.rank != 4) return RankError("value", "[N, S, M, D]", 4, value);
  Status s;
  if (kGiven != Given::kShapes) s = CheckDType("value", value.dtype);
  if (!s.ok()) return s;
  int64_t count = 0;
  s = CheckInput<kGiven>(kOp, "value", value, &count);
  if (!s.ok()) return s;
  int64_t total = 0;
  s = CheckLevels(levels, geometry, &total);
  if (!s.ok()) return s;
  if (value.shape[1] != total) {
    return Invalid(kOp, "value: expected S = " + Str(total) +
                            " (the sum of H * W over spatial_shapes) in [N, S, M, D], got " +
                            ShapeString(value.shape, value.rank));
  }
  if (locations.rank != 6) {
    return RankError("sampling_locations", "[N, Lq, M, L, P, 2]", 6, locations);
  }
  if (kGiven != Given::kShapes) s = CheckDType("sampling_locations", locations.dtype);
  if (s.ok()) s = CheckInput<kGiven>(kOp, "sampling_locations", locations, &count);
  if (!s.ok()) return s;
  const int64_t* ls = locations.shape;
  if (ls[0] != value.shape[0] || ls[2] != value.shape[2] || ls[3] != levels.count || ls[5] != 2) {
    return Invalid(
        kOp, "sampling_locations: expected [N, Lq, M, L, P, 2] with N = " + Str(value.shape[0]) +
                 ", M = " + Str(value.shape[2]) + " (value's) and L = " + Str(levels.count) +
                 " (levels), got " + ShapeString(ls, 6));
  }
  if (weights.rank != 5) return RankError("attention_weights", "[N, Lq, M, L, P]", 5, weights);
  if (kGiven != Given::kShapes) s = CheckDType("attention_weights", weights.dtype);
  if (s.ok()) s = CheckInput<kGiven>(kOp, "attention_weights", weights, &count);
  if (!s.ok()) return s;
  for (int a = 0; a < 5; ++a) {
    if (weights.shape[a] != ls[a]) {
      return Invalid(kOp, "attention_weights: expected " + ShapeString(ls, 5) +
                              " (sampling_locations' [N, Lq, M, L, P]), got " +
                              ShapeString(weights.shape, 5));
    }
  }
  geometry->n = value.shape[0];
  geometry->s = total;
  geometry->heads = value.shape[2];
  geometry->channels = value.shape[3];
  geometry->queries = ls[1];
  geometry->points = ls[4];
  int64_t y_shape[3];
  OutputShape(*geometry, y_shape);
  return CountElements(kOp, "Y", y_shape, 3, kGiven == Given::kShapes ? 1 : DTypeSize(value.dtype),
                       &count);
}

template Status ValidateDeformableAttentionInputs<Given::kShapes>(const TensorView&,
                                                                  const DeformableLevels&,
                                                                  const TensorView&,
                                                                  const TensorView&,
                                                                  DeformableAttentionGeometry*);
template Status ValidateDeformableAttentionInputs<Given::kShapesAndDTypes>(
    const TensorView&, const DeformableLevels&, const TensorView&, const TensorView&,
    DeformableAttentionGeometry*);

Status ValidateDeformableAttention(const TensorView& value, const DeformableLevels& levels,
                                   const TensorView& locations, const TensorView& weights,
                                   const MutableTensorView& y,
                                   DeformableAttentionGeometry* geometry) {
  Status s = ValidateDeformableAttentionInputs<Given::kShapesAndDTypes>(value, levels, locations,
                                                                        weights, geometry);
  if (s.ok()) s = CheckData(kOp, "value", value);
  if (s.ok()) s = CheckData(kOp, "sampling_locations", locations);
  if (s.ok()) s = CheckData(kOp, "attention_weights", weights);
  if (!s.ok()) return s;
  int64_t y_shape[3];
  OutputShape(*geometry, y_shape);
  return CheckOutput(kOp, "Y", y, value.dtype, y_shape, 3,
                     {{value, ElementCount(value)},
                      {locations, ElementCount(locations)},
                      {weights, ElementCount(weights)}});
}

Status ValidateDeformableAttentionCall(const TensorView& value, const DeformableLevels& levels,
                                       const TensorView& locations, const TensorView& weights,
                                       const MutableTensorView& y,
                                       const MultiScaleDeformableAttentionOptions& options,
                                       DeformableAttentionGeometry* geometry) {
  Status s = ValidateThreads(options.threads, kOp);
  if (s.ok()) s = ValidateDeformableAttention(value, levels, locations, weights, y, geometry);
  return s;
}

Status MultiScaleDeformableAttentionOutputShape(const TensorView& value,
                                                const DeformableLevels& levels,
                                                const TensorView& sampling_locations,
                                                const TensorView& attention_weights,
                                                int64_t* y_shape) {
  if (y_shape == nullptr) return Invalid(kOp, "y_shape pointer is null");
  DeformableAttentionGeometry geometry;
  Status s = ValidateDeformableAttentionInputs<Given::kShapes>(value, levels, sampling_locations,
                                                               attention_weights, &geometry);
  if (s.ok()) OutputShape(geometry, y_shape);
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
  if (!s.ok()) return s;
  Run(DeformableAttentionProblem{geometry, value, sampling_locations, attention_weights, y,
                                 options.threads});
  return Status::Ok();
}

}  // namespace gridsample
