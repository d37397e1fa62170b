// The official ONNX GridSample-16 examples (spec/001), checked to their printed precision.
//
// The spec page has no AffineGrid example with values, so AffineGrid is covered by
// affine_grid_property_test.cc and the golden cases instead.

#include <string>
#include <vector>

#include "test_util.h"

namespace gridsample_test {
namespace {

struct OnnxExample {
  const char* name;     // ONNX backend test name
  const char* mode;     // attribute spelling as in the example
  const char* padding;  // padding_mode attribute
  bool align_corners;
  std::vector<int64_t> x_shape;
  std::vector<double> x;
  std::vector<int64_t> grid_shape;
  std::vector<double> grid;
  std::vector<int64_t> y_shape;
  std::vector<double> y;
};

// Printed with 4 decimals, so every expected value is good to 5e-5.
constexpr double kPrintedAtol = 1e-4;

const std::vector<double> kX3x2 = {0., 1., 2., 3., 4., 5.};

// The examples as transcribed from the spec page, in its layout.
// clang-format off

// Grid of the "gridsample_paddingmode" example.
const std::vector<double> kPaddingGrid = {
    -10.0000, -10.0000, -5.0000, -5.0000, -0.2000, -0.2000, 10.0000, 10.0000,
    10.0000,  10.0000,  -0.2000, -0.2000, 5.0000,  5.0000,  10.0000, 10.0000};

// Grid of the "gridsample_mode_aligncorners" example.
const std::vector<double> kModeGrid = {
    -1.0000, -1.0000, -0.5000, -0.5000, -0.2000, -0.2000, 0.0000, 0.0000,
    0.0000,  0.0000,  -0.2000, -0.2000, 0.5000,  0.5000,  1.0000, 1.0000};

std::vector<OnnxExample> Examples() {
  std::vector<OnnxExample> e;
  // "gridsample": X 4x4 = 0..15, grid 6x6 stepping 0.4 over [-1, 1] in x (inner) and y.
  {
    std::vector<double> x(16);
    for (int i = 0; i < 16; ++i) x[i] = i;
    const double steps[6] = {-1.0000, -0.6000, -0.2000, 0.2000, 0.6000, 1.0000};
    std::vector<double> grid;
    for (double gy : steps) {
      for (double gx : steps) {
        grid.push_back(gx);
        grid.push_back(gy);
      }
    }
    e.push_back({"test_gridsample", "bilinear", "zeros", false, {1, 1, 4, 4}, x,
                 {1, 6, 6, 2}, grid, {1, 1, 6, 6},
                 {0.0000, 0.1500, 0.5500, 0.9500, 1.3500, 0.7500,   //
                  0.6000, 1.5000, 2.3000, 3.1000, 3.9000, 2.1000,   //
                  2.2000, 4.7000, 5.5000, 6.3000, 7.1000, 3.7000,   //
                  3.8000, 7.9000, 8.7000, 9.5000, 10.3000, 5.3000,  //
                  5.4000, 11.1000, 11.9000, 12.7000, 13.5000, 6.9000,
                  3.0000, 6.1500, 6.5500, 6.9500, 7.3500, 3.7500}});
  }
  // "gridsample_paddingmode": default mode (bilinear) and align_corners (0).
  e.push_back({"test_gridsample_zeros_padding", "bilinear", "zeros", false, {1, 1, 3, 2}, kX3x2,
               {1, 2, 4, 2}, kPaddingGrid, {1, 1, 2, 4},
               {0.0000, 0.0000, 1.7000, 0.0000, 0.0000, 1.7000, 0.0000, 0.0000}});
  e.push_back({"test_gridsample_border_padding", "bilinear", "border", false, {1, 1, 3, 2}, kX3x2,
               {1, 2, 4, 2}, kPaddingGrid, {1, 1, 2, 4},
               {0.0000, 0.0000, 1.7000, 5.0000, 5.0000, 1.7000, 5.0000, 5.0000}});
  e.push_back({"test_gridsample_reflection_padding", "bilinear", "reflection", false,
               {1, 1, 3, 2}, kX3x2, {1, 2, 4, 2}, kPaddingGrid, {1, 1, 2, 4},
               {2.5000, 0.0000, 1.7000, 2.5000, 2.5000, 1.7000, 5.0000, 2.5000}});
  // "gridsample_mode_aligncorners": default padding (zeros).
  e.push_back({"test_gridsample_bilinear", "bilinear", "zeros", false, {1, 1, 3, 2}, kX3x2,
               {1, 2, 4, 2}, kModeGrid, {1, 1, 2, 4},
               {0.0000, 0.5000, 1.7000, 2.5000, 2.5000, 1.7000, 4.5000, 1.2500}});
  e.push_back({"test_gridsample_aligncorners_true", "bilinear", "zeros", true, {1, 1, 3, 2},
               kX3x2, {1, 2, 4, 2}, kModeGrid, {1, 1, 2, 4},
               {0.0000, 1.2500, 2.0000, 2.5000, 2.5000, 2.0000, 3.7500, 5.0000}});
  e.push_back({"test_gridsample_nearest", "nearest", "zeros", false, {1, 1, 3, 2}, kX3x2,
               {1, 2, 4, 2}, kModeGrid, {1, 1, 2, 4}, {0., 0., 2., 2., 2., 2., 5., 0.}});
  e.push_back({"test_gridsample_bicubic", "bicubic", "zeros", false, {1, 1, 3, 2}, kX3x2,
               {1, 2, 4, 2}, kModeGrid, {1, 1, 2, 4},
               {-0.1406, 0.3828, 1.7556, 2.9688, 2.9688, 1.7556, 5.1445, 1.3906}});
  return e;
}
// clang-format on

// Runs one example through `kernel` with X and grid stored as `dtype` (float32 as in the
// spec, float64 to check the double path gives the same answer).
void CheckExample(const OnnxExample& ex, const Kernel& kernel, DType dtype) {
  SCOPED_TRACE(std::string(ex.name) + " kernel=" + kernel.name + " dtype=" + Name(dtype));
  GridSampleOptions options;
  ASSERT_TRUE(gridsample::ParseMode(ex.mode, &options.mode).ok()) << ex.mode;
  ASSERT_TRUE(gridsample::ParsePadding(ex.padding, &options.padding).ok()) << ex.padding;
  options.align_corners = ex.align_corners;

  // The spec's inputs are float32: round them so the float64 run sees the same numbers.
  const Tensor x = MakeTensor(DType::kFloat32, ex.x_shape, ex.x).Converted(dtype);
  const Tensor grid = MakeTensor(DType::kFloat32, ex.grid_shape, ex.grid).Converted(dtype);
  Tensor y;
  const Status status = RunGridSample(kernel.grid_sample, x, grid, options, &y);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(y.shape(), ex.y_shape);
  for (int64_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y.Get(i), ex.y[static_cast<size_t>(i)], kPrintedAtol)
        << WhereInY(y, i) << ' ' << Describe(options);
  }
}

TEST(OnnxExamples, GridSampleFloat32) {
  for (const OnnxExample& ex : Examples()) {
    for (const Kernel& kernel : kKernels) CheckExample(ex, kernel, DType::kFloat32);
  }
}

TEST(OnnxExamples, GridSampleFloat64) {
  for (const OnnxExample& ex : Examples()) {
    for (const Kernel& kernel : kKernels) CheckExample(ex, kernel, DType::kFloat64);
  }
}

// The opset-20 spellings ("linear", "cubic") name the same modes as opset 16's.
TEST(OnnxExamples, Opset20SpellingsGiveTheSameResults) {
  for (OnnxExample ex : Examples()) {
    const std::string mode = ex.mode;
    if (mode == "bilinear") ex.mode = "linear";
    if (mode == "bicubic") ex.mode = "cubic";
    CheckExample(ex, kKernels[0], DType::kFloat32);
  }
}

// The examples are 2-D; the same numbers must come out of a batch of two with the
// example repeated, and with three identical channels (checks the n/c strides).
TEST(OnnxExamples, BatchAndChannelsRepeatTheExample) {
  for (const OnnxExample& ex : Examples()) {
    for (const Kernel& kernel : kKernels) {
      SCOPED_TRACE(std::string(ex.name) + " kernel=" + kernel.name);
      GridSampleOptions options;
      ASSERT_TRUE(gridsample::ParseMode(ex.mode, &options.mode).ok());
      ASSERT_TRUE(gridsample::ParsePadding(ex.padding, &options.padding).ok());
      options.align_corners = ex.align_corners;
      constexpr int64_t kN = 2, kC = 3;
      std::vector<int64_t> x_shape = ex.x_shape, grid_shape = ex.grid_shape;
      x_shape[0] = kN;
      x_shape[1] = kC;
      grid_shape[0] = kN;
      std::vector<double> x_values, grid_values;
      for (int64_t n = 0; n < kN; ++n) {
        for (int64_t c = 0; c < kC; ++c) {
          // Channel c holds X + 100 * c + 1000 * n so strides show up in the values.
          for (double v : ex.x) x_values.push_back(v + 100.0 * c + 1000.0 * n);
        }
        grid_values.insert(grid_values.end(), ex.grid.begin(), ex.grid.end());
      }
      const Tensor x = MakeTensor(DType::kFloat32, x_shape, x_values);
      const Tensor grid = MakeTensor(DType::kFloat32, grid_shape, grid_values);
      Tensor y;
      const Status status = RunGridSample(kernel.grid_sample, x, grid, options, &y);
      ASSERT_TRUE(status.ok()) << status.message();
      // Each (n, c) slice must equal that slice sampled on its own: batch and channel
      // strides are right and no plane leaks into another.
      const int64_t plane = static_cast<int64_t>(ex.y.size());
      for (int64_t n = 0; n < kN; ++n) {
        for (int64_t c = 0; c < kC; ++c) {
          std::vector<double> one_x(ex.x);
          for (double& v : one_x) v += 100.0 * c + 1000.0 * n;
          const Tensor x1 = MakeTensor(DType::kFloat32, ex.x_shape, one_x);
          const Tensor g1 = MakeTensor(DType::kFloat32, ex.grid_shape, ex.grid);
          Tensor y1;
          ASSERT_TRUE(RunGridSample(kernel.grid_sample, x1, g1, options, &y1).ok());
          for (int64_t i = 0; i < plane; ++i) {
            EXPECT_EQ(y.Get((n * kC + c) * plane + i), y1.Get(i))
                << WhereInY(y, (n * kC + c) * plane + i) << ' ' << Describe(options);
          }
        }
      }
      // And the unshifted slice (n=0, c=0) is the example itself.
      for (int64_t i = 0; i < plane; ++i) {
        EXPECT_NEAR(y.Get(i), ex.y[static_cast<size_t>(i)], kPrintedAtol) << WhereInY(y, i);
      }
    }
  }
}

}  // namespace
}  // namespace gridsample_test
