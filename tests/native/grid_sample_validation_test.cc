// Bad-input tests of GridSample and the name parsers: every validation rule, message and status.
//
// Each case breaks one thing in an otherwise valid call and checks the status code, that
// the message names the argument and shows the value given, that nothing was written to
// the output, and that a valid call right after still succeeds.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridsample/warp_affine.h"
#include "test_util.h"
#include "validation_util.h"

namespace gridsample_test {
namespace {

// ---------------------------------------------------------------------------
// GridSample.

// A valid 2-D call that each case breaks in one place. Buffers are large enough for the
// valid shapes; broken shapes may claim more elements than that, which validation must
// reject before touching any data.
struct GridSampleCall {
  std::vector<int64_t> x_shape{2, 3, 4, 5};
  std::vector<int64_t> grid_shape{2, 6, 7, 2};
  std::vector<int64_t> y_shape{2, 3, 6, 7};
  DType x_dtype = DType::kFloat32, grid_dtype = DType::kFloat32, y_dtype = DType::kFloat32;
  bool null_x = false, null_grid = false, null_y = false;
  bool null_x_shape = false, null_grid_shape = false, null_y_shape = false;
  GridSampleOptions options;
};

Status Call(const GridSampleCall& c, GridSampleFn fn, Buffers* b) {
  TensorView x, grid;
  MutableTensorView y;
  x.data = c.null_x ? nullptr : b->x.data();
  x.dtype = c.x_dtype;
  x.shape = c.null_x_shape ? nullptr : c.x_shape.data();
  x.rank = c.x_shape.size();
  grid.data = c.null_grid ? nullptr : b->grid.data();
  grid.dtype = c.grid_dtype;
  grid.shape = c.null_grid_shape ? nullptr : c.grid_shape.data();
  grid.rank = c.grid_shape.size();
  y.data = c.null_y ? nullptr : b->y.data();
  y.dtype = c.y_dtype;
  y.shape = c.null_y_shape ? nullptr : c.y_shape.data();
  y.rank = c.y_shape.size();
  return fn(x, grid, y, c.options);
}

struct GridSampleCase {
  const char* what;
  std::function<void(GridSampleCall&)> breaks;
  StatusCode code;
  std::vector<std::string> names;   // any one of these must be named
  std::vector<std::string> values;  // all of these must appear
};

// The cases one a line where they fit (clang-format would give each field a line).
// clang-format off
std::vector<GridSampleCase> GridSampleCases() {
  using C = GridSampleCall;
  const StatusCode kBad = StatusCode::kInvalidArgument, kRange = StatusCode::kOutOfRange;
  return {
      {"null x data", [](C& c) { c.null_x = true; }, kBad, {"x"}, {"null"}},
      {"null grid data", [](C& c) { c.null_grid = true; }, kBad, {"grid"}, {"null"}},
      {"null y data", [](C& c) { c.null_y = true; }, kBad, {"y"}, {"null"}},
      {"null x shape", [](C& c) { c.null_x_shape = true; }, kBad, {"x"}, {"null"}},
      {"null grid shape", [](C& c) { c.null_grid_shape = true; }, kBad, {"grid"}, {"null"}},
      {"null y shape", [](C& c) { c.null_y_shape = true; }, kBad, {"y"}, {"null"}},
      {"x rank 2", [](C& c) { c.x_shape = {2, 3}; }, kBad, {"x"}, {"2"}},
      {"x rank 0", [](C& c) { c.x_shape = {}; }, kBad, {"x"}, {}},
      {"x rank 11 (r = 9 > kMaxSpatialRank)",
       [](C& c) {
         c.x_shape = std::vector<int64_t>(11, 1);
         c.x_shape[0] = 2;
         c.grid_shape = std::vector<int64_t>(11, 1);
         c.grid_shape[0] = 2;
         c.grid_shape[10] = 9;
         c.y_shape = std::vector<int64_t>(11, 1);
         c.y_shape[0] = 2;
       },
       kBad, {"x"}, {"11"}},
      {"grid rank 3 for x rank 4", [](C& c) { c.grid_shape = {2, 6, 2}; }, kBad, {"grid"}, {"3"}},
      {"grid rank 5 for x rank 4", [](C& c) { c.grid_shape = {2, 6, 7, 1, 2}; }, kBad, {"grid"},
       {"5"}},
      {"grid last dim 5 for r = 2", [](C& c) { c.grid_shape = {2, 6, 7, 5}; }, kBad, {"grid"},
       {"5"}},
      {"grid N 3 for x N 2", [](C& c) { c.grid_shape = {3, 6, 7, 2}; }, kBad, {"grid"}, {"3"}},
      {"y dim 9 instead of 7", [](C& c) { c.y_shape = {2, 3, 6, 9}; }, kBad, {"y"}, {"9"}},
      {"y C 13 instead of 3", [](C& c) { c.y_shape = {2, 13, 6, 7}; }, kBad, {"y"}, {"13"}},
      {"y rank 3", [](C& c) { c.y_shape = {2, 3, 42}; }, kBad, {"y"}, {}},
      {"y float64 for x float32", [](C& c) { c.y_dtype = DType::kFloat64; }, kBad, {"y"},
       {"float64"}},
      {"grid int8", [](C& c) { c.grid_dtype = DType::kInt8; }, kBad, {"grid"}, {"int8"}},
      {"grid uint8", [](C& c) { c.grid_dtype = DType::kUint8; }, kBad, {"grid"}, {"uint8"}},
      {"grid int32", [](C& c) { c.grid_dtype = DType::kInt32; }, kBad, {"grid"}, {"int32"}},
      {"x dtype 99",
       [](C& c) {
         c.x_dtype = static_cast<DType>(99);
         c.y_dtype = static_cast<DType>(99);
       },
       kBad, {"x"}, {"99"}},
      {"grid dtype 99", [](C& c) { c.grid_dtype = static_cast<DType>(99); }, kBad, {"grid"},
       {"99"}},
      {"x dtype -1",
       [](C& c) {
         c.x_dtype = static_cast<DType>(-1);
         c.y_dtype = static_cast<DType>(-1);
       },
       kBad, {"x"}, {"-1"}},
      {"negative x dim", [](C& c) { c.x_shape = {2, 3, -4, 5}; }, kBad, {"x"}, {"-4"}},
      {"negative x C", [](C& c) { c.x_shape = {2, -3, 4, 5}; }, kBad, {"x"}, {"-3"}},
      {"negative grid dim",
       [](C& c) {
         c.grid_shape = {2, -6, 7, 2};
         c.y_shape = {2, 3, -6, 7};
       },
       kBad, {"grid"}, {"-6"}},
      {"negative y dim", [](C& c) { c.y_shape = {2, 3, 6, -7}; }, kBad, {"y"}, {"-7"}},
      {"x element count overflows int64",
       [](C& c) {
         c.x_shape = {1, 1, k2Pow32, k2Pow32};
         c.grid_shape = {1, 6, 7, 2};
         c.y_shape = {1, 1, 6, 7};
       },
       kRange, {"x"}, {}},
      {"x element count overflows int64 through C",
       [](C& c) {
         c.x_shape = {2, k2Pow40, k2Pow20, 4};
         c.y_shape = {2, k2Pow40, 6, 7};
       },
       kRange, {"x", "y"}, {}},
      {"x byte count overflows size_t (float64)",
       [](C& c) {
         c.x_dtype = c.y_dtype = DType::kFloat64;
         c.x_shape = {1, 1, k2Pow31, k2Pow30};
         c.grid_shape = {1, 6, 7, 2};
         c.y_shape = {1, 1, 6, 7};
       },
       kRange, {"x"}, {}},
      {"grid element count overflows int64",
       [](C& c) {
         c.grid_shape = {2, k2Pow32, k2Pow32, 2};
         c.y_shape = {2, 3, k2Pow32, k2Pow32};
       },
       kRange, {"grid", "y"}, {}},
      {"only y's element count overflows",
       [](C& c) {
         // x has 2^40 elements, grid 2^41: both fit in int64 (and in 64-bit size_t bytes);
         // y = 2^40 * 2^40 does not.
         c.x_shape = {1, k2Pow40, 1, 1};
         c.grid_shape = {1, k2Pow20, k2Pow20, 2};
         c.y_shape = {1, k2Pow40, k2Pow20, k2Pow20};
       },
       // With a 32-bit size_t (wasm) x's 2^42 bytes already overflow, and x is reported.
       kRange, sizeof(size_t) >= 8 ? std::vector<std::string>{"y"} : std::vector<std::string>{"x", "y"},
       {}},
      {"empty x spatial dim with a non-empty output", [](C& c) { c.x_shape = {2, 3, 0, 5}; }, kBad,
       {"x"}, {}},
      {"mode 7", [](C& c) { c.options.mode = static_cast<Mode>(7); }, kBad, {"mode"}, {"7"}},
      {"padding 9", [](C& c) { c.options.padding = static_cast<Padding>(9); }, kBad,
       {"padding", "padding_mode"}, {"9"}},
  };
}
// clang-format on

TEST(GridSampleValidation, EveryRule) {
  for (const Kernel& kernel : kKernels) {
    ExpectEveryCaseRejected<GridSampleCall>(
        kernel.name, GridSampleCases(), "y",
        [&](const GridSampleCall& c, Buffers* b) { return Call(c, kernel.grid_sample, b); });
  }
}

// A grid that does not fit X gets a message a reader can act on: what X's shape implies, what
// the grid would fit and, for an image given without its channel axis, the shape to use
// (issue 11: it used to say "grid: expected shape [N, O1..O1, 1] (rank 3)").
TEST(GridSampleValidation, GridShapeMismatchSaysWhatXImplies) {
  const std::vector<float> x(16), grid(72), y(16);
  const int64_t x_shape[3] = {1, 4, 4}, grid_shape[4] = {1, 6, 6, 2}, y_shape[3] = {1, 4, 6};
  Status s = gridsample::GridSample(
      {x.data(), DType::kFloat32, x_shape, 3}, {grid.data(), DType::kFloat32, grid_shape, 4},
      {const_cast<float*>(y.data()), DType::kFloat32, y_shape, 3}, {});
  EXPECT_EQ(
      s.message(),
      "GridSample: X has shape [1, 4, 4], 1 spatial axis [N, C, W], so grid must have rank 3 "
      "and last dimension 1 ([N, Wo, 1]); got grid shape [1, 6, 6, 2] (rank 4), which samples X of "
      "shape [N, C, H, W] (is X missing its channel axis? [1, 1, 4, 4] for one channel)");
  const int64_t x5[5] = {1, 1, 4, 4, 4}, grid5[5] = {1, 2, 2, 2, 2}, y5[5] = {1, 1, 2, 2, 2};
  s = gridsample::GridSample({x.data(), DType::kFloat32, x5, 5},
                             {grid.data(), DType::kFloat32, grid5, 5},
                             {const_cast<float*>(y.data()), DType::kFloat32, y5, 5}, {});
  EXPECT_EQ(
      s.message(),
      "GridSample: X has shape [1, 1, 4, 4, 4], 3 spatial axes [N, C, D, H, W], so grid must "
      "have rank 5 and last dimension 3 ([N, Do, Ho, Wo, 3]); got grid shape [1, 2, 2, 2, 2]");
}

TEST(GridSampleValidation, ValidBaselineAcceptsEveryDTypePair) {
  // The baseline the cases break is itself valid for every supported dtype combination.
  for (const Kernel& kernel : kKernels) {
    for (DType xt : kAllDTypes) {
      for (DType gt : kGridDTypes) {
        GridSampleCall call;
        call.x_dtype = call.y_dtype = xt;
        call.grid_dtype = gt;
        Buffers buffers;
        buffers.ResetY();
        const Status s = Call(call, kernel.grid_sample, &buffers);
        EXPECT_TRUE(s.ok()) << kernel.name << " x=" << Name(xt) << " grid=" << Name(gt) << ": "
                            << s.message();
      }
    }
  }
}

TEST(GridSampleValidation, OutputShape) {
  const std::vector<int64_t> x_shape{2, 3, 4, 5, 6}, grid_shape{2, 7, 8, 9, 3};
  // Dtypes and data pointers are not looked at (grid_sample.h), only shapes.
  TensorView x, grid;
  x.shape = x_shape.data();
  x.rank = x_shape.size();
  x.dtype = static_cast<DType>(99);
  grid.shape = grid_shape.data();
  grid.rank = grid_shape.size();
  grid.dtype = DType::kInt8;
  int64_t y_shape[5] = {};
  Status s = gridsample::GridSampleOutputShape(x, grid, y_shape);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(std::vector<int64_t>(y_shape, y_shape + 5), (std::vector<int64_t>{2, 3, 7, 8, 9}));

  const std::vector<int64_t> bad_grid{2, 7, 8, 9, 2};
  grid.shape = bad_grid.data();
  s = gridsample::GridSampleOutputShape(x, grid, y_shape);
  ExpectError(s, StatusCode::kInvalidArgument, {"grid"}, {}, "grid last dim 2 for r = 3");

  const std::vector<int64_t> neg_x{2, 3, 4, -5, 6};
  x.shape = neg_x.data();
  grid.shape = grid_shape.data();
  s = gridsample::GridSampleOutputShape(x, grid, y_shape);
  ExpectError(s, StatusCode::kInvalidArgument, {"x"}, {"-5"}, "negative x dim");
}

// ---------------------------------------------------------------------------
// Name parsers.

TEST(NameParsing, ModeSpellings) {
  struct Case {
    const char* name;
    Mode mode;
  };
  const Case kCases[] = {{"linear", Mode::kLinear},
                         {"bilinear", Mode::kLinear},
                         {"nearest", Mode::kNearest},
                         {"cubic", Mode::kCubic},
                         {"bicubic", Mode::kCubic}};
  for (const Case& c : kCases) {
    Mode m = static_cast<Mode>(42);
    const Status s = gridsample::ParseMode(c.name, &m);
    EXPECT_TRUE(s.ok()) << c.name << ": " << s.message();
    EXPECT_EQ(m, c.mode) << c.name;
  }
  for (const char* bad : {"foo_mode", "", "trilinear", "linear ", "area"}) {
    Mode m = Mode::kNearest;
    const Status s = gridsample::ParseMode(bad, &m);
    ExpectError(s, StatusCode::kInvalidArgument, {"mode"}, {std::string(bad)},
                std::string("ParseMode(\"") + bad + "\")");
    EXPECT_EQ(m, Mode::kNearest) << "ParseMode wrote its output on error for \"" << bad << '"';
  }
  EXPECT_STREQ(gridsample::ModeName(Mode::kLinear), "linear");
  EXPECT_STREQ(gridsample::ModeName(Mode::kNearest), "nearest");
  EXPECT_STREQ(gridsample::ModeName(Mode::kCubic), "cubic");
}

TEST(NameParsing, PaddingSpellings) {
  struct Case {
    const char* name;
    Padding padding;
  };
  const Case kCases[] = {{"zeros", Padding::kZeros},
                         {"border", Padding::kBorder},
                         {"reflection", Padding::kReflection}};
  for (const Case& c : kCases) {
    Padding p = static_cast<Padding>(42);
    const Status s = gridsample::ParsePadding(c.name, &p);
    EXPECT_TRUE(s.ok()) << c.name << ": " << s.message();
    EXPECT_EQ(p, c.padding) << c.name;
    EXPECT_STREQ(gridsample::PaddingName(c.padding), c.name);
  }
  for (const char* bad : {"mirror_pad", "", "zero", "reflect", "constant"}) {
    Padding p = Padding::kBorder;
    const Status s = gridsample::ParsePadding(bad, &p);
    ExpectError(s, StatusCode::kInvalidArgument, {"padding", "padding_mode"}, {std::string(bad)},
                std::string("ParsePadding(\"") + bad + "\")");
    EXPECT_EQ(p, Padding::kBorder) << "ParsePadding wrote its output on error for \"" << bad << '"';
  }
}

TEST(NameParsing, DTypeNamesRoundTrip) {
  for (DType t : kAllDTypes) {
    EXPECT_STREQ(gridsample::DTypeName(t), Name(t));
    EXPECT_EQ(gridsample::DTypeSize(t), ElementSize(t)) << Name(t);
    DType parsed = static_cast<DType>(42);
    const Status s = gridsample::ParseDType(Name(t), &parsed);
    EXPECT_TRUE(s.ok()) << Name(t) << ": " << s.message();
    EXPECT_EQ(parsed, t) << Name(t);
  }
  EXPECT_EQ(gridsample::DTypeSize(static_cast<DType>(99)), 0u);
  EXPECT_STREQ(gridsample::DTypeName(static_cast<DType>(99)), "unknown");
  DType parsed = DType::kUint8;
  const Status s = gridsample::ParseDType("float8e4m3", &parsed, "theta");
  ExpectError(s, StatusCode::kInvalidArgument, {"theta"}, {"float8e4m3"}, "ParseDType(float8e4m3)");
  EXPECT_EQ(parsed, DType::kUint8);
}

}  // namespace
}  // namespace gridsample_test
