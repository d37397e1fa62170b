// Bad-input tests of AffineGrid: every validation rule, its message and status, output shapes.
//
// Each case breaks one thing in an otherwise valid call and checks the status code, that
// the message names the argument and shows the value given, that nothing was written to
// the output, and that a valid call right after still succeeds.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"
#include "validation_util.h"

namespace gridsample_test {
namespace {

// ---------------------------------------------------------------------------
// AffineGrid.

struct AffineGridCall {
  std::vector<int64_t> theta_shape{2, 2, 3};
  std::vector<int64_t> size{2, 3, 5, 7};
  std::vector<int64_t> grid_shape{2, 5, 7, 2};
  DType theta_dtype = DType::kFloat32, grid_dtype = DType::kFloat32;
  bool null_theta = false, null_theta_shape = false, null_size = false, null_grid = false;
  bool null_grid_shape = false;
  AffineGridOptions options;
};

Status Call(const AffineGridCall& c, AffineGridFn fn, Buffers* b) {
  TensorView theta;
  MutableTensorView grid;
  theta.data = c.null_theta ? nullptr : b->x.data();
  theta.dtype = c.theta_dtype;
  theta.shape = c.null_theta_shape ? nullptr : c.theta_shape.data();
  theta.rank = c.theta_shape.size();
  grid.data = c.null_grid ? nullptr : b->y.data();
  grid.dtype = c.grid_dtype;
  grid.shape = c.null_grid_shape ? nullptr : c.grid_shape.data();
  grid.rank = c.grid_shape.size();
  return fn(theta, c.null_size ? nullptr : c.size.data(), c.size.size(), grid, c.options);
}

struct AffineGridCase {
  const char* what;
  std::function<void(AffineGridCall&)> breaks;
  StatusCode code;
  std::vector<std::string> names;
  std::vector<std::string> values;
};

// The cases one a line where they fit (clang-format would give each field a line).
// clang-format off
std::vector<AffineGridCase> AffineGridCases() {
  using C = AffineGridCall;
  const StatusCode kBad = StatusCode::kInvalidArgument, kRange = StatusCode::kOutOfRange;
  return {
      {"null theta data", [](C& c) { c.null_theta = true; }, kBad, {"theta"}, {"null"}},
      {"null theta shape", [](C& c) { c.null_theta_shape = true; }, kBad, {"theta"}, {"null"}},
      {"null size", [](C& c) { c.null_size = true; }, kBad, {"size"}, {"null"}},
      {"null grid data", [](C& c) { c.null_grid = true; }, kBad, {"grid"}, {"null"}},
      {"null grid shape", [](C& c) { c.null_grid_shape = true; }, kBad, {"grid"}, {"null"}},
      {"theta (N,3,4) for a 4-long size", [](C& c) { c.theta_shape = {2, 3, 4}; }, kBad,
       {"theta"}, {"4"}},
      {"theta (N,2,5)", [](C& c) { c.theta_shape = {2, 2, 5}; }, kBad, {"theta"}, {"5"}},
      {"theta (N,2,3) for a 5-long size",
       [](C& c) {
         c.size = {2, 3, 4, 5, 7};
         c.grid_shape = {2, 4, 5, 7, 3};
       },
       kBad, {"theta"}, {}},
      {"theta rank 2", [](C& c) { c.theta_shape = {2, 6}; }, kBad, {"theta"}, {}},
      {"size length 3", [](C& c) { c.size = {2, 5, 7}; }, kBad, {"size"}, {"3"}},
      {"size length 6", [](C& c) { c.size = {2, 3, 4, 5, 6, 7}; }, kBad, {"size"}, {"6"}},
      {"size length 0", [](C& c) { c.size.clear(); }, kBad, {"size"}, {"0"}},
      {"negative size entry", [](C& c) { c.size = {2, 3, -5, 7}; }, kBad, {"size"}, {"-5"}},
      {"negative size C", [](C& c) { c.size = {2, -3, 5, 7}; }, kBad, {"size"}, {"-3"}},
      {"size N 3 for theta N 2",
       [](C& c) {
         c.size = {3, 3, 5, 7};
         c.grid_shape = {3, 5, 7, 2};
       },
       kBad, {"theta", "size"}, {"3"}},
      {"grid W 8 instead of 7", [](C& c) { c.grid_shape = {2, 5, 8, 2}; }, kBad, {"grid"}, {"8"}},
      {"grid last dim 3", [](C& c) { c.grid_shape = {2, 5, 7, 3}; }, kBad, {"grid"}, {"3"}},
      {"grid rank 5 for 2-D", [](C& c) { c.grid_shape = {2, 1, 5, 7, 2}; }, kBad, {"grid"}, {}},
      {"grid float64 for theta float32", [](C& c) { c.grid_dtype = DType::kFloat64; }, kBad,
       {"grid"}, {"float64"}},
      {"theta int32",
       [](C& c) { c.theta_dtype = c.grid_dtype = DType::kInt32; }, kBad, {"theta"}, {"int32"}},
      {"theta uint8",
       [](C& c) { c.theta_dtype = c.grid_dtype = DType::kUint8; }, kBad, {"theta"}, {"uint8"}},
      {"theta dtype 99",
       [](C& c) { c.theta_dtype = c.grid_dtype = static_cast<DType>(99); }, kBad, {"theta"},
       {"99"}},
      {"size overflows int64",
       [](C& c) {
         c.size = {2, 3, k2Pow32, k2Pow32};
         c.grid_shape = {2, k2Pow32, k2Pow32, 2};
       },
       kRange, {"size", "grid"}, {}},
  };
}
// clang-format on

TEST(AffineGridValidation, EveryRule) {
  for (const Kernel& kernel : kKernels) {
    ExpectEveryCaseRejected<AffineGridCall>(
        kernel.name, AffineGridCases(), "grid",
        [&](const AffineGridCall& c, Buffers* b) { return Call(c, kernel.affine_grid, b); });
  }
}

TEST(AffineGridValidation, OutputShape) {
  const int64_t size4[] = {2, 3, 5, 7}, size5[] = {2, 3, 4, 5, 7};
  int64_t shape[5] = {};
  ASSERT_TRUE(gridsample::AffineGridOutputShape(size4, 4, shape).ok());
  EXPECT_EQ(std::vector<int64_t>(shape, shape + 4), (std::vector<int64_t>{2, 5, 7, 2}));
  ASSERT_TRUE(gridsample::AffineGridOutputShape(size5, 5, shape).ok());
  EXPECT_EQ(std::vector<int64_t>(shape, shape + 5), (std::vector<int64_t>{2, 4, 5, 7, 3}));
  ExpectError(gridsample::AffineGridOutputShape(size4, 3, shape), StatusCode::kInvalidArgument,
              {"size"}, {"3"}, "AffineGridOutputShape size length 3");
  const int64_t negative[] = {2, 3, -5, 7};
  ExpectError(gridsample::AffineGridOutputShape(negative, 4, shape), StatusCode::kInvalidArgument,
              {"size"}, {"-5"}, "AffineGridOutputShape -5");
  ExpectError(gridsample::AffineGridOutputShape(nullptr, 4, shape), StatusCode::kInvalidArgument,
              {"size"}, {"null"}, "AffineGridOutputShape null size");
}

TEST(AffineGridValidation, ValidBaselineAcceptsEveryFloatDType) {
  for (const Kernel& kernel : kKernels) {
    for (DType t : kGridDTypes) {
      for (bool three_d : {false, true}) {
        AffineGridCall call;
        call.theta_dtype = call.grid_dtype = t;
        if (three_d) {
          call.theta_shape = {2, 3, 4};
          call.size = {2, 3, 4, 5, 7};
          call.grid_shape = {2, 4, 5, 7, 3};
        }
        Buffers buffers;
        buffers.ResetY();
        const Status s = Call(call, kernel.affine_grid, &buffers);
        EXPECT_TRUE(s.ok()) << kernel.name << ' ' << Name(t) << (three_d ? " 3-D" : " 2-D") << ": "
                            << s.message();
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
