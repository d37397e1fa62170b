// MultiScaleDeformableAttention's argument rule: every broken input is refused with a one-line
// message naming it, nothing is written, and the output-shape query follows the same rule.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/multi_scale_deformable_attention.h"
#include "gtest/gtest.h"
#include "validation_util.h"

namespace gridsample_test {
namespace {

using gridsample::DeformableLevels;
using gridsample::MultiScaleDeformableAttentionOptions;

// A valid call (levels 3x4 and 2x4, S = 20), which each case breaks in one place.
struct AttentionCall {
  std::vector<int64_t> value{2, 20, 2, 3};
  std::vector<int64_t> shapes{3, 4, 2, 4};
  std::vector<int64_t> starts{0, 12};
  int64_t levels = 2;
  bool null_shapes = false, null_starts = false, null_value = false, y_on_value = false;
  std::vector<int64_t> locations{2, 5, 2, 2, 3, 2};
  std::vector<int64_t> weights{2, 5, 2, 2, 3};
  std::vector<int64_t> y{2, 5, 6};
  DType value_dtype = DType::kFloat32, locations_dtype = DType::kFloat32,
        weights_dtype = DType::kFloat32, y_dtype = DType::kFloat32;
  int threads = 1;
  std::vector<int64_t> points;  // points_per_level (P_l); empty: none (the rank-6 form)
  int sampling = 0;             // DeformableSampling
};

struct Case {
  std::string what;
  std::function<void(AttentionCall&)> breaks;
  StatusCode code;
  std::vector<std::string> names, values;
};

using Fn = Status (*)(const TensorView&, const DeformableLevels&, const TensorView&,
                      const TensorView&, const MutableTensorView&,
                      const MultiScaleDeformableAttentionOptions&);

Status RunCall(Fn fn, const AttentionCall& c, Buffers* b) {
  const TensorView value{c.null_value ? nullptr : b->x.data(), c.value_dtype, c.value.data(),
                         c.value.size()};
  const TensorView locations{b->grid.data(), c.locations_dtype, c.locations.data(),
                             c.locations.size()};
  const TensorView weights{b->grid.data() + 2048, c.weights_dtype, c.weights.data(),
                           c.weights.size()};
  const MutableTensorView y{c.y_on_value ? static_cast<void*>(b->x.data()) : b->y.data(), c.y_dtype,
                            c.y.data(), c.y.size()};
  const DeformableLevels levels{c.null_shapes ? nullptr : c.shapes.data(),
                                c.null_starts ? nullptr : c.starts.data(), c.levels,
                                c.points.empty() ? nullptr : c.points.data()};
  MultiScaleDeformableAttentionOptions options;
  options.threads.count = c.threads;
  options.sampling = static_cast<gridsample::DeformableSampling>(c.sampling);
  return fn(value, levels, locations, weights, y, options);
}

const int64_t kHuge = int64_t{1} << 62;
const StatusCode kInvalid = StatusCode::kInvalidArgument;

// The valid call's points listed per level (P_l = 2 and 4: locations [2, 5, 2, 6, 2]).
void ListPoints(AttentionCall& c) {
  c.points = {2, 4};
  c.locations = {2, 5, 2, 6, 2};
  c.weights = {2, 5, 2, 6};
}

std::vector<Case> Cases() {
  return {
      {"value of rank 3",
       [](AttentionCall& c) {
         c.value = {2, 20, 6};
       },
       kInvalid,
       {"value"},
       {"rank 4", "[N, S, M, D]", "[2, 20, 6]"}},
      {"float64 value",
       [](AttentionCall& c) { c.value_dtype = DType::kFloat64; },
       kInvalid,
       {"value"},
       {"float32, float16 or bfloat16", "float64"}},
      {"int8 value",
       [](AttentionCall& c) { c.value_dtype = DType::kInt8; },
       kInvalid,
       {"value"},
       {"int8"}},
      {"a negative head count",
       [](AttentionCall& c) { c.value[2] = -2; },
       kInvalid,
       {"value"},
       {"-2"}},
      {"no level", [](AttentionCall& c) { c.levels = 0; }, kInvalid, {"levels"}, {"L = 0"}},
      {"null spatial_shapes",
       [](AttentionCall& c) { c.null_shapes = true; },
       kInvalid,
       {"spatial_shapes"},
       {"null"}},
      {"null level_start_index",
       [](AttentionCall& c) { c.null_starts = true; },
       kInvalid,
       {"level_start_index"},
       {"null"}},
      {"a level of height 0",
       [](AttentionCall& c) {
         c.shapes = {3, 4, 0, 4};
       },
       kInvalid,
       {"spatial_shapes"},
       {"[0, 4]", "level 1"}},
      {"a level of width -1",
       [](AttentionCall& c) {
         c.shapes = {3, -1, 2, 4};
       },
       kInvalid,
       {"spatial_shapes"},
       {"[3, -1]", "level 0"}},
      {"H * W beyond int64",
       [](AttentionCall& c) {
         c.shapes = {3, 4, kHuge, 4};
       },
       StatusCode::kOutOfRange,
       {"spatial_shapes"},
       {"int64", "level 1"}},
      {"the levels' sum beyond int64",
       [](AttentionCall& c) {
         c.shapes = {kHuge, 1, kHuge, 1};
       },
       StatusCode::kOutOfRange,
       {"spatial_shapes"},
       {"int64", "level 1"}},
      {"a start that disagrees",
       [](AttentionCall& c) {
         c.starts = {0, 11};
       },
       kInvalid,
       {"level_start_index"},
       {"expected 12", "level 1", "got 11"}},
      {"a first start that is not 0",
       [](AttentionCall& c) {
         c.starts = {1, 12};
       },
       kInvalid,
       {"level_start_index"},
       {"expected 0", "got 1"}},
      {"S that is not the levels' sum",
       [](AttentionCall& c) { c.value[1] = 21; },
       kInvalid,
       {"value"},
       {"S = 20", "[2, 21, 2, 3]"}},
      {"locations of rank 5",
       [](AttentionCall& c) {
         c.locations = {2, 5, 2, 2, 6};
       },
       kInvalid,
       {"sampling_locations"},
       {"rank 6", "[N, Lq, M, L, P, 2]"}},
      {"locations of another batch",
       [](AttentionCall& c) { c.locations[0] = 1; },
       kInvalid,
       {"sampling_locations"},
       {"N = 2", "[1, 5, 2, 2, 3, 2]"}},
      {"locations of other heads",
       [](AttentionCall& c) { c.locations[2] = 8; },
       kInvalid,
       {"sampling_locations"},
       {"M = 2", "[2, 5, 8, 2, 3, 2]"}},
      {"locations of 3 levels",
       [](AttentionCall& c) { c.locations[3] = 3; },
       kInvalid,
       {"sampling_locations"},
       {"L = 2", "[2, 5, 2, 3, 3, 2]"}},
      {"3 coordinates a location",
       [](AttentionCall& c) { c.locations[5] = 3; },
       kInvalid,
       {"sampling_locations"},
       {"[2, 5, 2, 2, 3, 3]"}},
      {"int32 locations",
       [](AttentionCall& c) { c.locations_dtype = DType::kInt32; },
       kInvalid,
       {"sampling_locations"},
       {"int32"}},
      {"weights of rank 4",
       [](AttentionCall& c) {
         c.weights = {2, 5, 2, 6};
       },
       kInvalid,
       {"attention_weights"},
       {"rank 5", "[N, Lq, M, L, P]"}},
      {"weights of 4 points",
       [](AttentionCall& c) { c.weights[4] = 4; },
       kInvalid,
       {"attention_weights"},
       {"[2, 5, 2, 2, 3]", "[2, 5, 2, 2, 4]"}},
      {"float64 weights",
       [](AttentionCall& c) { c.weights_dtype = DType::kFloat64; },
       kInvalid,
       {"attention_weights"},
       {"float64"}},
      {"a value too large",
       [](AttentionCall& c) {
         c.value = {kHuge, 20, kHuge, 3};
       },
       StatusCode::kOutOfRange,
       {"value"},
       {"memory"}},
      {"locations too large",
       [](AttentionCall& c) { c.locations[1] = kHuge; },
       StatusCode::kOutOfRange,
       {"sampling_locations"},
       {"memory"}},
      {"Y of the wrong shape",
       [](AttentionCall& c) {
         c.y = {2, 5, 5};
       },
       kInvalid,
       {"Y"},
       {"[2, 5, 6]", "[2, 5, 5]"}},
      {"Y of another dtype",
       [](AttentionCall& c) { c.y_dtype = DType::kFloat16; },
       kInvalid,
       {"Y"},
       {"float32", "float16"}},
      {"Y over the value",
       [](AttentionCall& c) { c.y_on_value = true; },
       kInvalid,
       {"Y"},
       {"overlaps"}},
      {"null value data",
       [](AttentionCall& c) { c.null_value = true; },
       kInvalid,
       {"value"},
       {"null"}},
      {"a negative thread count",
       [](AttentionCall& c) { c.threads = -1; },
       kInvalid,
       {"threads.count"},
       {"-1"}},
      {"an unknown sampling",
       [](AttentionCall& c) { c.sampling = 7; },
       kInvalid,
       {"options.sampling"},
       {"kBilinear", "kDiscrete", "got 7"}},
      {"a level of no points",
       [](AttentionCall& c) {
         ListPoints(c);
         c.points = {6, 0};
       },
       kInvalid,
       {"points_per_level"},
       {"P_l >= 1", "got 0", "level 1"}},
      {"a level of -1 points",
       [](AttentionCall& c) {
         ListPoints(c);
         c.points = {-1, 7};
       },
       kInvalid,
       {"points_per_level"},
       {"got -1", "level 0"}},
      {"points per level beyond int64",
       [](AttentionCall& c) {
         ListPoints(c);
         c.points = {kHuge, kHuge};
       },
       StatusCode::kOutOfRange,
       {"points_per_level"},
       {"int64", "level 1"}},
      {"points per level with rank-6 locations",
       [](AttentionCall& c) {
         c.points = {1, 2};
       },
       kInvalid,
       {"sampling_locations"},
       {"rank 5", "[N, Lq, M, sum(P_l), 2]", "points_per_level", "[2, 5, 2, 2, 3, 2]"}},
      {"points per level that do not add up",
       [](AttentionCall& c) {
         ListPoints(c);
         c.points = {2, 5};
       },
       kInvalid,
       {"sampling_locations"},
       {"sum(P_l) = 7", "[2, 5, 2, 6, 2]"}},
      {"listed locations of other heads",
       [](AttentionCall& c) {
         ListPoints(c);
         c.locations[2] = 3;
       },
       kInvalid,
       {"sampling_locations"},
       {"M = 2", "[2, 5, 3, 6, 2]"}},
      {"listed points with rank-5 weights",
       [](AttentionCall& c) {
         ListPoints(c);
         c.weights = {2, 5, 2, 2, 3};
       },
       kInvalid,
       {"attention_weights"},
       {"rank 4", "[N, Lq, M, sum(P_l)]"}},
      {"listed points with weights of other points",
       [](AttentionCall& c) {
         ListPoints(c);
         c.weights[3] = 7;
       },
       kInvalid,
       {"attention_weights"},
       {"[2, 5, 2, 6]", "[2, 5, 2, 7]"}},
  };
}

TEST(DeformableAttentionValidation, EveryBrokenInputIsRefused) {
  for (Fn fn : {&gridsample::MultiScaleDeformableAttention,
                &gridsample::reference::MultiScaleDeformableAttention}) {
    ExpectEveryCaseRejected<AttentionCall>(
        "MultiScaleDeformableAttention", Cases(), "Y",
        [fn](const AttentionCall& c, Buffers* b) { return RunCall(fn, c, b); });
  }
}

TEST(DeformableAttentionValidation, MessagesAreOneLineAndNameTheOperator) {
  for (const Case& bad : Cases()) {
    AttentionCall call;
    bad.breaks(call);
    Buffers buffers;
    const Status s = RunCall(&gridsample::MultiScaleDeformableAttention, call, &buffers);
    EXPECT_EQ(s.message().find('\n'), std::string::npos) << bad.what << ": " << s.message();
    EXPECT_EQ(s.message().rfind("MultiScaleDeformableAttention: ", 0), 0u)
        << bad.what << ": " << s.message();
  }
}

// The query sizes the output without looking at dtypes or data, by the same shape rule.
TEST(DeformableAttentionValidation, OutputShapeQuery) {
  AttentionCall c;
  const std::vector<int64_t> shapes = c.shapes, starts = c.starts;
  const DeformableLevels levels{shapes.data(), starts.data(), 2};
  const TensorView value{nullptr, DType::kInt8, c.value.data(), 4};
  const TensorView locations{nullptr, DType::kUint8, c.locations.data(), 6};
  const TensorView weights{nullptr, DType::kFloat64, c.weights.data(), 5};
  int64_t y[3] = {-1, -1, -1};
  Status s =
      gridsample::MultiScaleDeformableAttentionOutputShape(value, levels, locations, weights, y);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(std::vector<int64_t>(y, y + 3), (std::vector<int64_t>{2, 5, 6}));
  const std::vector<int64_t> bad_starts{0, 13};
  s = gridsample::MultiScaleDeformableAttentionOutputShape(
      value, {shapes.data(), bad_starts.data(), 2}, locations, weights, y);
  ExpectError(s, kInvalid, {"level_start_index"}, {"expected 12", "got 13"}, "query");
  s = gridsample::MultiScaleDeformableAttentionOutputShape(value, levels, locations, weights,
                                                           nullptr);
  ExpectError(s, kInvalid, {"y_shape"}, {"null"}, "query without y_shape");
  // The listed form.
  ListPoints(c);
  const DeformableLevels listed{shapes.data(), starts.data(), 2, c.points.data()};
  const TensorView listed_locations{nullptr, DType::kUint8, c.locations.data(), 5};
  const TensorView listed_weights{nullptr, DType::kFloat64, c.weights.data(), 4};
  y[0] = y[1] = y[2] = -1;
  s = gridsample::MultiScaleDeformableAttentionOutputShape(value, listed, listed_locations,
                                                           listed_weights, y);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(std::vector<int64_t>(y, y + 3), (std::vector<int64_t>{2, 5, 6}));
  s = gridsample::MultiScaleDeformableAttentionOutputShape(value, listed, locations, weights, y);
  ExpectError(s, kInvalid, {"sampling_locations"}, {"rank 5"}, "listed query, rank-6 locations");
}

// The valid call in the listed form, and with discrete sampling, runs.
TEST(DeformableAttentionValidation, ListedPointsAndDiscreteSamplingAreTaken) {
  for (Fn fn : {&gridsample::MultiScaleDeformableAttention,
                &gridsample::reference::MultiScaleDeformableAttention}) {
    for (int sampling : {0, 1}) {
      AttentionCall c;
      ListPoints(c);
      c.sampling = sampling;
      Buffers buffers;
      const Status s = RunCall(fn, c, &buffers);
      EXPECT_TRUE(s.ok()) << s.message();
    }
  }
}

}  // namespace
}  // namespace gridsample_test
