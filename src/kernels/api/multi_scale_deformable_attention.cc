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

// The levels' point counts where the call lists them (points_per_level): each P_l >= 1, their
// sum, in *sum, fitting int64.
Status CheckPointsPerLevel(const DeformableLevels& levels, int64_t* sum) {
  *sum = 0;
  for (int64_t l = 0; l < levels.count; ++l) {
    const int64_t p = levels.points_per_level[l];
    if (p < 1) {
      return Invalid(kOp, "points_per_level: expected P_l >= 1 for every level, got " + Str(p) +
                              " for level " + Str(l));
    }
    if (p > std::numeric_limits<int64_t>::max() - *sum) {
      return Status::OutOfRange(std::string(kOp) + ": points_per_level: the levels' P_l add up " +
                                "to more than int64 holds at level " + Str(l) + " (" + Str(p) +
                                ")");
    }
    *sum += p;
  }
  return Status::Ok();
}

}  // namespace

void DeformableAttentionOutputShape(const DeformableAttentionGeometry& g, int64_t* y_shape) {
  y_shape[0] = g.n;
  y_shape[1] = g.queries;
  y_shape[2] = g.heads * g.channels;
}

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
  // The points' axes: [L, P] (rank 6), or [sum(P_l)] (rank 5) where the levels list P_l.
  const bool listed = levels.points_per_level != nullptr;
  int64_t listed_sum = 0;
  if (listed) s = CheckPointsPerLevel(levels, &listed_sum);
  if (!s.ok()) return s;
  const size_t rank = listed ? 5 : 6;
  if (locations.rank != rank) {
    return RankError("sampling_locations",
                     listed ? "[N, Lq, M, sum(P_l), 2] (points_per_level is given)"
                            : "[N, Lq, M, L, P, 2] (no points_per_level)",
                     rank, locations);
  }
  if (kGiven != Given::kShapes) s = CheckDType("sampling_locations", locations.dtype);
  if (s.ok()) s = CheckInput<kGiven>(kOp, "sampling_locations", locations, &count);
  if (!s.ok()) return s;
  const int64_t* ls = locations.shape;
  if (ls[0] != value.shape[0] || ls[2] != value.shape[2] ||
      ls[3] != (listed ? listed_sum : levels.count) || ls[rank - 1] != 2) {
    return Invalid(
        kOp, std::string("sampling_locations: expected ") +
                 (listed ? "[N, Lq, M, sum(P_l), 2]" : "[N, Lq, M, L, P, 2]") + " with N = " +
                 Str(value.shape[0]) + ", M = " + Str(value.shape[2]) + " (value's) and " +
                 (listed ? "sum(P_l) = " : "L = ") + Str(listed ? listed_sum : levels.count) +
                 (listed ? " (points_per_level)" : " (levels)") + ", got " + ShapeString(ls, rank));
  }
  const char* weights_layout = listed ? "[N, Lq, M, sum(P_l)]" : "[N, Lq, M, L, P]";
  if (weights.rank != rank - 1) {
    return RankError("attention_weights", weights_layout, rank - 1, weights);
  }
  if (kGiven != Given::kShapes) s = CheckDType("attention_weights", weights.dtype);
  if (s.ok()) s = CheckInput<kGiven>(kOp, "attention_weights", weights, &count);
  if (!s.ok()) return s;
  for (size_t a = 0; a + 1 < rank; ++a) {
    if (weights.shape[a] != ls[a]) {
      return Invalid(kOp, "attention_weights: expected " + ShapeString(ls, rank - 1) +
                              " (sampling_locations' " + weights_layout + "), got " +
                              ShapeString(weights.shape, rank - 1));
    }
  }
  geometry->n = value.shape[0];
  geometry->s = total;
  geometry->heads = value.shape[2];
  geometry->channels = value.shape[3];
  geometry->queries = ls[1];
  geometry->points = listed ? listed_sum : ls[3] * ls[4];  // within the locations' count
  geometry->level_points = levels.points_per_level;
  int64_t y_shape[3];
  DeformableAttentionOutputShape(*geometry, y_shape);
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
  DeformableAttentionOutputShape(*geometry, y_shape);
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
  if (s.ok() && options.sampling != DeformableSampling::kBilinear &&
      options.sampling != DeformableSampling::kDiscrete) {
    s = Invalid(kOp, "options.sampling: expected kBilinear (0) or kDiscrete (1), got " +
                         Str(static_cast<int>(options.sampling)));
  }
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
  if (s.ok()) DeformableAttentionOutputShape(geometry, y_shape);
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
                                 options.threads, options.sampling});
  return Status::Ok();
}

}  // namespace gridsample
