// Validation of the channels-last calls: each bad argument named in the message, Y untouched.
#include <cstdint>
#include <string>
#include <vector>

#include "gridsample/warp_affine.h"
#include "gtest/gtest.h"
#include "shape_query.h"
#include "test_util.h"
#include "validation_util.h"

namespace gridsample_test {
namespace {

// The call fails with kInvalidArgument, the message starts with the operator, names `what`
// and contains each of `parts`; Y keeps its sentinel bytes.
void ExpectRejected(const Status& s, const Tensor& y, const std::string& op,
                    const std::string& what, const std::vector<std::string>& parts) {
  EXPECT_FALSE(s.ok()) << what;
  EXPECT_EQ(static_cast<int>(s.code()), static_cast<int>(StatusCode::kInvalidArgument))
      << s.message();
  EXPECT_EQ(s.message().rfind(op + ": " + what, 0), 0u) << "message: " << s.message();
  for (const std::string& p : parts)
    EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' not in: " << s.message();
  EXPECT_TRUE(y.AllBytesAre(kSentinel)) << "output written on error: " << s.message();
}

TEST(ChannelsLastValidation, WarpAffineRejectsBadArguments) {
  const Tensor x(DType::kUint8, {1, 4, 5, 4});
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  Tensor y(DType::kUint8, {1, 6, 7, 4});
  y.FillBytes(kSentinel);
  auto call = [&](const TensorView& xv, const TensorView& tv, const MutableTensorView& yv,
                  GridSampleOptions o = {}) { return gridsample::WarpAffine(xv, tv, yv, o); };

  const Tensor x3(DType::kUint8, {4, 5, 4});
  ExpectRejected(call(x3.View(), theta.View(), y.MutableView()), y, "WarpAffine", "X",
                 {"expected rank 4 (N, H, W, C)", "got rank 3", "[4, 5, 4]"});
  const Tensor theta_i(DType::kInt32, {1, 2, 3});
  ExpectRejected(call(x.View(), theta_i.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected dtype float32 or float64", "int32"});
  const Tensor theta_h(DType::kFloat16, {1, 2, 3});
  ExpectRejected(call(x.View(), theta_h.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"float32 or float64", "float16"});
  const Tensor theta34(DType::kFloat32, {1, 3, 4});
  ExpectRejected(call(x.View(), theta34.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected shape [1, 2, 3]", "[1, 4, 5, 4]", "got [1, 3, 4]"});
  const Tensor theta2(DType::kFloat32, {2, 2, 3});
  ExpectRejected(call(x.View(), theta2.View(), y.MutableView()), y, "WarpAffine", "theta",
                 {"expected shape [1, 2, 3]", "got [2, 2, 3]"});
  Tensor y3(DType::kUint8, {6, 7, 4});
  y3.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), y3.MutableView()), y3, "WarpAffine", "Y",
                 {"expected shape [1, Ho, Wo, 4] (rank 4)", "got rank 3"});
  Tensor yc(DType::kUint8, {1, 6, 7, 3});
  yc.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), yc.MutableView()), yc, "WarpAffine", "Y",
                 {"expected shape [1, 6, 7, 4]", "got [1, 6, 7, 3]"});
  Tensor yt(DType::kFloat32, {1, 6, 7, 4});
  yt.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), theta.View(), yt.MutableView()), yt, "WarpAffine", "Y",
                 {"expected dtype uint8", "got float32"});
  const int64_t neg_shape[4] = {1, -6, 7, 4};
  MutableTensorView yneg = y.MutableView();
  yneg.shape = neg_shape;
  ExpectRejected(call(x.View(), theta.View(), yneg), y, "WarpAffine", "Y",
                 {"dimension 1 must be >= 0", "-6"});
  const Tensor x_empty(DType::kUint8, {1, 0, 5, 4});
  ExpectRejected(call(x_empty.View(), theta.View(), y.MutableView()), y, "WarpAffine", "X",
                 {"a dimension is 0", "[1, 0, 5, 4]", "[1, 6, 7, 4]"});
  ExpectRejected(call(x.View(), theta.View(), y.MutableView(),
                      {static_cast<Mode>(7), Padding::kZeros, false, {}}),
                 y, "WarpAffine", "mode", {"got value 7"});
  ExpectRejected(call(x.View(), theta.View(), y.MutableView(),
                      {Mode::kLinear, static_cast<Padding>(-1), false, {}}),
                 y, "WarpAffine", "padding", {"got value -1"});
  // Y overlapping X.
  Tensor big(DType::kUint8, {1, 4, 5, 4});
  MutableTensorView alias{big.data(), DType::kUint8, y.shape().data(), 4};
  const TensorView big_x = big.View();
  const Status s = call(big_x, theta.View(), alias);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlaps an input"), std::string::npos) << s.message();
  // Still usable.
  EXPECT_TRUE(call(x.View(), theta.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, WarpPerspectiveRejectsBadArguments) {
  const Tensor x(DType::kFloat32, {2, 4, 5, 3});
  const Tensor h = MakeTensor(DType::kFloat64, {2, 3, 3},
                              {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  Tensor y(DType::kFloat32, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  auto call = [&](const TensorView& hv, const MutableTensorView& yv) {
    return gridsample::WarpPerspective(x.View(), hv, yv, {});
  };
  const Tensor h_i(DType::kInt32, {2, 3, 3});
  ExpectRejected(call(h_i.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected dtype float32 or float64", "int32"});
  const Tensor h23(DType::kFloat32, {2, 2, 3});
  ExpectRejected(call(h23.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected shape [2, 3, 3]", "[2, 4, 5, 3]", "got [2, 2, 3]"});
  const Tensor h1(DType::kFloat32, {1, 3, 3});
  ExpectRejected(call(h1.View(), y.MutableView()), y, "WarpPerspective", "H",
                 {"expected shape [2, 3, 3]", "got [1, 3, 3]"});
  TensorView hv = h.View();
  hv.data = nullptr;
  ExpectRejected(call(hv, y.MutableView()), y, "WarpPerspective", "H", {"data pointer is null"});
  Tensor y3(DType::kFloat32, {2, 6, 7});
  y3.FillBytes(kSentinel);
  ExpectRejected(call(h.View(), y3.MutableView()), y3, "WarpPerspective", "Y",
                 {"expected shape [2, Ho, Wo, 3] (rank 4)", "got rank 3"});
  EXPECT_TRUE(call(h.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, RemapRejectsBadArguments) {
  const Tensor x(DType::kUint8, {2, 4, 5, 3});
  const Tensor map(DType::kFloat32, {2, 6, 7, 2});
  const Tensor mx(DType::kFloat32, {2, 6, 7}), my(DType::kFloat32, {2, 6, 7});
  Tensor y(DType::kUint8, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  const auto one = [&](const TensorView& m, const MutableTensorView& yv) {
    return gridsample::Remap(x.View(), m, yv, {});
  };
  const auto two = [&](const TensorView& a, const TensorView& b, const MutableTensorView& yv) {
    return gridsample::Remap(x.View(), a, b, yv, {});
  };
  const Tensor map_d(DType::kFloat64, {2, 6, 7, 2});
  ExpectRejected(one(map_d.View(), y.MutableView()), y, "Remap", "map",
                 {"expected dtype float32 (pixel coordinates)", "float64"});
  const Tensor map3(DType::kFloat32, {2, 6, 7, 3});
  ExpectRejected(one(map3.View(), y.MutableView()), y, "Remap", "map",
                 {"expected shape [N, Ho, Wo, 2] with N = 2 (X's)", "got [2, 6, 7, 3]"});
  const Tensor map_n(DType::kFloat32, {1, 6, 7, 2});
  ExpectRejected(one(map_n.View(), y.MutableView()), y, "Remap", "map", {"got [1, 6, 7, 2]"});
  ExpectRejected(one(mx.View(), y.MutableView()), y, "Remap", "map",
                 {"expected shape [N, Ho, Wo, 2]", "got [2, 6, 7]"});
  const Tensor my_wrong(DType::kFloat32, {2, 7, 6});
  ExpectRejected(two(mx.View(), my_wrong.View(), y.MutableView()), y, "Remap", "map_y",
                 {"expected map_x's shape [2, 6, 7]", "got [2, 7, 6]"});
  const Tensor mx_i(DType::kInt32, {2, 6, 7});
  ExpectRejected(two(mx_i.View(), my.View(), y.MutableView()), y, "Remap", "map_x",
                 {"expected dtype float32", "int32"});
  ExpectRejected(two(map.View(), my.View(), y.MutableView()), y, "Remap", "map_x",
                 {"expected shape [N, Ho, Wo] with N = 2", "got [2, 6, 7, 2]"});
  Tensor y_wrong(DType::kUint8, {2, 7, 6, 3});
  y_wrong.FillBytes(kSentinel);
  ExpectRejected(one(map.View(), y_wrong.MutableView()), y_wrong, "Remap", "Y",
                 {"expected shape [2, 6, 7, 3]", "got [2, 7, 6, 3]"});
  // Y on top of map_y.
  Tensor big(DType::kFloat32, {2, 6, 7, 3});
  MutableTensorView alias{big.data(), DType::kUint8, y.shape().data(), 4};
  const int64_t plane_shape[3] = {2, 6, 7};
  const TensorView my_alias{big.data(), DType::kFloat32, plane_shape, 3};
  const Status s = two(mx.View(), my_alias, alias);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("overlaps an input"), std::string::npos) << s.message();
  EXPECT_TRUE(one(map.View(), y.MutableView()).ok());
  EXPECT_TRUE(two(mx.View(), my.View(), y.MutableView()).ok());
}

TEST(ChannelsLastValidation, GridSampleChannelsLastRejectsBadArguments) {
  const Tensor x(DType::kFloat32, {2, 4, 5, 3});
  const Tensor grid(DType::kFloat32, {2, 6, 7, 2});
  Tensor y(DType::kFloat32, {2, 6, 7, 3});
  y.FillBytes(kSentinel);
  // Each call's inputs are also given to the shape query the JS package sizes Y with.
  auto call = [&](const TensorView& xv, const TensorView& gv, const MutableTensorView& yv) {
    const Status s = gridsample::GridSampleChannelsLast(xv, gv, yv, {});
    ExpectQueryAgrees(gridsample::GridSampleChannelsLastOutputShape, "GridSampleChannelsLast",
                      {"X", "grid"}, xv, gv, s, {2, 6, 7, 3});  // every valid pair's
    return s;
  };
  const Tensor x5(DType::kFloat32, {2, 1, 4, 5, 3});
  ExpectRejected(call(x5.View(), grid.View(), y.MutableView()), y, "GridSampleChannelsLast", "X",
                 {"expected rank 4 (N, H, W, C)", "got rank 5"});
  const Tensor grid_i(DType::kUint8, {2, 6, 7, 2});
  ExpectRejected(call(x.View(), grid_i.View(), y.MutableView()), y, "GridSampleChannelsLast",
                 "grid", {"expected dtype float32, float64, float16 or bfloat16", "uint8"});
  const Tensor grid3(DType::kFloat32, {2, 6, 7, 3});
  ExpectRejected(call(x.View(), grid3.View(), y.MutableView()), y, "GridSampleChannelsLast", "grid",
                 {"expected shape [N, Ho, Wo, 2]", "[2, 6, 7, 3]"});
  const Tensor grid_n(DType::kFloat32, {1, 6, 7, 2});
  ExpectRejected(call(x.View(), grid_n.View(), y.MutableView()), y, "GridSampleChannelsLast",
                 "grid", {"expected batch size N = 2", "[1, 6, 7, 2]"});
  Tensor y_wrong(DType::kFloat32, {2, 7, 6, 3});
  y_wrong.FillBytes(kSentinel);
  ExpectRejected(call(x.View(), grid.View(), y_wrong.MutableView()), y_wrong,
                 "GridSampleChannelsLast", "Y",
                 {"expected shape [2, 6, 7, 3]", "got [2, 7, 6, 3]"});
  const Tensor x_null_shape = x;
  TensorView xv = x_null_shape.View();
  xv.data = nullptr;
  ExpectRejected(call(xv, grid.View(), y.MutableView()), y, "GridSampleChannelsLast", "X",
                 {"data pointer is null"});
  EXPECT_TRUE(call(x.View(), grid.View(), y.MutableView()).ok());
}

}  // namespace
}  // namespace gridsample_test
