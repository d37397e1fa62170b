// Prepared calls (gridsample/sampler.h): a Sampler prepared once runs any number of times on new
// data with the free function's results and errors, within the reference's tolerance, from
// several threads at once; a Sampler not prepared, a wrong input count, null data and an
// overlapping output are errors.
#include "gridsample/sampler.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/reference_calls.h"
#include "gridsample/gridsample.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "threading_util.h"

namespace gridsample_test {
namespace {

using gridsample::AffineGridOptions;
using gridsample::GridSampleOptions;
using gridsample::MatrixSpace;
using gridsample::Mode;
using gridsample::Padding;
using gridsample::Sampler;
using gridsample::Status;

// The largest |a - b| over two tensors of one shape.
double MaxDiff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a.Get(i) - b.Get(i)));
  return worst;
}

std::vector<int64_t> OutputShape(const Sampler& s) {
  return {s.output_shape(), s.output_shape() + s.output_rank()};
}

GridSampleOptions Options(Mode mode, Padding padding, bool align) {
  GridSampleOptions o;
  o.mode = mode;
  o.padding = padding;
  o.align_corners = align;
  return o;
}

// GridSample prepared once for each mode, padding, dtype and rank, run on three sets of data:
// each run is the free function's bytes on that data, and within 1e-5 of the reference.
TEST(Sampler, GridSampleRunsAsTheFreeFunctionOnNewData) {
  std::mt19937 rng(5);
  const std::vector<std::vector<int64_t>> x_shapes = {{2, 3, 7, 9}, {1, 2, 4, 5, 6}, {2, 1, 11}};
  const std::vector<std::vector<int64_t>> outs = {{5, 6}, {3, 2, 4}, {13}};
  for (size_t k = 0; k < x_shapes.size(); ++k) {
    for (DType dtype : {DType::kFloat32, DType::kUint8, DType::kFloat16}) {
      for (Mode mode : {Mode::kLinear, Mode::kNearest, Mode::kCubic}) {
        for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
          const GridSampleOptions o = Options(mode, padding, k == 1);
          const Tensor spec_x(dtype, x_shapes[k]);
          const Tensor spec_grid(DType::kFloat32, GridShape(x_shapes[k][0], outs[k]));
          Sampler sampler;
          ASSERT_TRUE(Sampler::GridSample(spec_x.View(), spec_grid.View(), o, &sampler).ok());
          ASSERT_EQ(sampler.input_count(), 2u);
          Tensor want(dtype, OutputShape(sampler));
          ASSERT_EQ(sampler.output_dtype(), dtype);
          ASSERT_EQ(sampler.output_bytes(), want.bytes());
          for (int run = 0; run < 3; ++run) {
            const Tensor x = RandomTensor(rng, dtype, x_shapes[k]);
            const Tensor grid = RandomGrid(rng, DType::kFloat32, spec_grid.shape());
            Tensor got(dtype, want.shape());
            ASSERT_TRUE(gridsample::GridSample(x.View(), grid.View(), want.MutableView(), o).ok());
            ASSERT_TRUE(sampler.Run(x.data(), grid.data(), got.data()).ok());
            EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0)
                << "rank " << x_shapes[k].size() << " " << gridsample::DTypeName(dtype) << " "
                << gridsample::ModeName(mode) << " " << gridsample::PaddingName(padding);
            Tensor ref(dtype, want.shape());
            ASSERT_TRUE(
                gridsample::reference::GridSample(x.View(), grid.View(), ref.MutableView(), o)
                    .ok());
            EXPECT_LE(MaxDiff(got, ref), dtype == DType::kFloat32 ? 1e-5 : 1.0);
          }
        }
      }
    }
  }
}

// The other prepared operators: channels-last GridSample, WarpFlow and AffineGrid.
TEST(Sampler, OtherOperatorsRunAsTheirFreeFunctions) {
  std::mt19937 rng(6);
  const GridSampleOptions o = Options(Mode::kLinear, Padding::kBorder, false);
  {
    const Tensor x = RandomTensor(rng, DType::kUint8, {2, 9, 8, 4});
    const Tensor grid = RandomGrid(rng, DType::kFloat32, {2, 5, 7, 2});
    Sampler s;
    ASSERT_TRUE(Sampler::GridSampleChannelsLast(x.View(), grid.View(), o, &s).ok());
    EXPECT_EQ(OutputShape(s), (std::vector<int64_t>{2, 5, 7, 4}));
    Tensor want(DType::kUint8, {2, 5, 7, 4}), got(DType::kUint8, {2, 5, 7, 4});
    ASSERT_TRUE(
        gridsample::GridSampleChannelsLast(x.View(), grid.View(), want.MutableView(), o).ok());
    ASSERT_TRUE(s.Run(x.data(), grid.data(), got.data()).ok());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
  }
  {
    const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 3, 6, 7});
    const Tensor flow = RandomTensor(rng, DType::kFloat32, {1, 2, 5, 4});
    Sampler s;
    ASSERT_TRUE(Sampler::WarpFlow(x.View(), flow.View(), o, &s).ok());
    EXPECT_EQ(OutputShape(s), (std::vector<int64_t>{1, 3, 5, 4}));
    Tensor got(DType::kFloat32, {1, 3, 5, 4}), ref(DType::kFloat32, {1, 3, 5, 4});
    ASSERT_TRUE(s.Run(x.data(), flow.data(), got.data()).ok());
    ASSERT_TRUE(gridsample::reference::WarpFlow(x.View(), flow.View(), ref.MutableView(), o).ok());
    EXPECT_LE(MaxDiff(got, ref), 1e-5);
  }
  {
    const Tensor theta = RandomTensor(rng, DType::kFloat32, {2, 3, 4});
    const int64_t size[5] = {2, 1, 3, 4, 5};
    AffineGridOptions a;
    a.align_corners = true;
    Sampler s;
    ASSERT_TRUE(Sampler::AffineGrid(theta.View(), size, 5, a, &s).ok());
    ASSERT_EQ(s.input_count(), 1u);
    EXPECT_EQ(OutputShape(s), (std::vector<int64_t>{2, 3, 4, 5, 3}));
    Tensor got(DType::kFloat32, {2, 3, 4, 5, 3}), ref(DType::kFloat32, {2, 3, 4, 5, 3});
    ASSERT_TRUE(s.Run(theta.data(), got.data()).ok());
    ASSERT_TRUE(
        gridsample::reference::AffineGrid(theta.View(), size, 5, ref.MutableView(), a).ok());
    EXPECT_EQ(std::memcmp(got.data(), ref.data(), got.bytes()), 0);
  }
}

// The image warps and the pixel maps, fill included: the Sampler keeps its own copy of the colour
// (the caller's is changed after preparing), and matches the free function.
TEST(Sampler, WarpsAndMapsRunAsTheirFreeFunctions) {
  std::mt19937 rng(9);
  GridSampleOptions o = Options(Mode::kCubic, Padding::kZeros, false);
  const Tensor x = RandomTensor(rng, DType::kUint8, {2, 12, 10, 3});
  Tensor want(DType::kUint8, {2, 7, 9, 3}), got(DType::kUint8, {2, 7, 9, 3});
  const Tensor theta = MakeTensor(DType::kFloat64, {2, 2, 3},
                                  {0.9, -0.2, 0.05, 0.25, 0.85, 0, 1.1, 0.1, -0.2, 0, 0.7, 0.3});
  const Tensor h =
      MakeTensor(DType::kFloat32, {2, 3, 3},
                 {0.9, 0.1, 1, -0.1, 1.1, 0.5, 0.001, 0.002, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  double fill[3] = {10, 200, 30};
  const double kept[3] = {10, 200, 30};
  const TensorView y_spec = {nullptr, DType::kUint8, want.shape().data(), 4};
  Sampler affine, perspective;
  ASSERT_TRUE(Sampler::WarpAffine(x.View(), theta.View(), y_spec, o, fill, MatrixSpace::kNormalized,
                                  &affine)
                  .ok());
  ASSERT_TRUE(Sampler::WarpPerspective(x.View(), h.View(), y_spec, o, fill,
                                       MatrixSpace::kPixelInverse, &perspective)
                  .ok());
  fill[0] = fill[1] = fill[2] = 0;
  ASSERT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), want.MutableView(), o, kept).ok());
  ASSERT_TRUE(affine.Run(x.data(), theta.data(), got.data()).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
  ASSERT_TRUE(gridsample::WarpPerspective(x.View(), h.View(), want.MutableView(), o, kept).ok());
  ASSERT_TRUE(perspective.Run(x.data(), h.data(), got.data()).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);

  const Tensor map = RandomTensor(rng, DType::kFloat32, {2, 7, 9, 2}, 12.0);
  const Tensor map_x = RandomTensor(rng, DType::kFloat32, {2, 7, 9}, 12.0);
  const Tensor map_y = RandomTensor(rng, DType::kFloat32, {2, 7, 9}, 12.0);
  Sampler pairs, planes, flow;
  ASSERT_TRUE(Sampler::Remap(x.View(), map.View(), o, kept, &pairs).ok());
  ASSERT_TRUE(Sampler::Remap(x.View(), map_x.View(), map_y.View(), o, nullptr, &planes).ok());
  ASSERT_TRUE(
      Sampler::WarpFlowChannelsLast(x.View(), map_x.View(), map_y.View(), o, kept, &flow).ok());
  EXPECT_EQ(planes.input_count(), 3u);
  ASSERT_TRUE(gridsample::reference::Remap(x.View(), map.View(), want.MutableView(), o, kept).ok());
  ASSERT_TRUE(pairs.Run(x.data(), map.data(), got.data()).ok());
  EXPECT_LE(MaxDiff(got, want), 1.0);
  ASSERT_TRUE(gridsample::Remap(x.View(), map_x.View(), map_y.View(), want.MutableView(), o).ok());
  const void* inputs[3] = {x.data(), map_x.data(), map_y.data()};
  ASSERT_TRUE(planes.Run(inputs, 3, got.data()).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
  ASSERT_TRUE(gridsample::WarpFlowChannelsLast(x.View(), map_x.View(), map_y.View(),
                                               want.MutableView(), o, kept)
                  .ok());
  ASSERT_TRUE(flow.Run(inputs, 3, got.data()).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.bytes()), 0);
  EXPECT_NE(planes.Run(inputs, 2, got.data()).message().find("expected 3 inputs, got 2"),
            std::string::npos);
}

// Preparing checks what the free function checks, with its message; the Sampler is left as it
// was.
TEST(Sampler, PreparingGivesTheFreeFunctionsErrors) {
  const Tensor x(DType::kFloat32, {1, 2, 4, 4});
  const Tensor bad_grid(DType::kFloat32, {1, 3, 3, 3});
  Tensor y(DType::kFloat32, {1, 2, 3, 3});
  const Status free_call = gridsample::GridSample(x.View(), bad_grid.View(), y.MutableView());
  ASSERT_FALSE(free_call.ok());
  Sampler s;
  const Status prepared = Sampler::GridSample(x.View(), bad_grid.View(), {}, &s);
  EXPECT_EQ(prepared.message(), free_call.message());
  EXPECT_FALSE(s.prepared());
  EXPECT_FALSE(Sampler::GridSample(x.View(), x.View(), {}, nullptr).ok());
  GridSampleOptions o;
  o.mode = static_cast<Mode>(7);
  EXPECT_NE(Sampler::GridSample(x.View(), bad_grid.View(), o, &s).message().find("mode"),
            std::string::npos);
  const Tensor theta(DType::kInt32, {1, 2, 3});
  const int64_t size[4] = {1, 1, 2, 2};
  EXPECT_NE(Sampler::AffineGrid(theta.View(), size, 4, {}, &s).message().find("theta"),
            std::string::npos);
  EXPECT_FALSE(s.prepared());
}

// Running checks the data: a Sampler not prepared (or moved from), a wrong count of inputs, null
// pointers and an output over an input are errors that write nothing.
TEST(Sampler, RunningChecksTheData) {
  const Tensor x(DType::kFloat32, {1, 1, 4, 4});
  const Tensor grid(DType::kFloat32, {1, 2, 2, 2});
  Tensor y(DType::kFloat32, {1, 1, 2, 2});
  y.FillBytes(0xAB);
  Sampler empty;
  EXPECT_NE(empty.Run(x.data(), grid.data(), y.data()).message().find("not prepared"),
            std::string::npos);
  Sampler s;
  ASSERT_TRUE(Sampler::GridSample(x.View(), grid.View(), {}, &s).ok());
  EXPECT_NE(s.Run(x.data(), y.data()).message().find("expected 2 inputs, got 1"),
            std::string::npos);
  EXPECT_NE(s.Run(nullptr, grid.data(), y.data()).message().find("X: data pointer is null"),
            std::string::npos);
  EXPECT_NE(s.Run(x.data(), nullptr, y.data()).message().find("grid: data pointer is null"),
            std::string::npos);
  EXPECT_NE(s.Run(x.data(), grid.data(), nullptr).message().find("Y: data pointer is null"),
            std::string::npos);
  EXPECT_NE(s.Run(x.data(), grid.data(), const_cast<void*>(x.data())).message().find("overlaps"),
            std::string::npos);
  Tensor wrong(DType::kFloat32, {1, 1, 2, 3});
  const void* inputs[2] = {x.data(), grid.data()};
  EXPECT_NE(s.Run(inputs, 2, wrong.MutableView()).message().find("expected shape [1, 1, 2, 2]"),
            std::string::npos);
  EXPECT_TRUE(y.AllBytesAre(0xAB));
  Sampler moved = std::move(s);
  EXPECT_TRUE(moved.Run(x.data(), grid.data(), y.data()).ok());
  EXPECT_FALSE(s.prepared());  // NOLINT(bugprone-use-after-move): moved-from is documented
}

// Empty tensors prepare and run as the free functions do: nothing to read or write.
TEST(Sampler, EmptyTensorsRun) {
  const Tensor x(DType::kFloat32, {0, 3, 4, 4});
  const Tensor grid(DType::kFloat32, {0, 2, 2, 2});
  Sampler s;
  ASSERT_TRUE(Sampler::GridSample(x.View(), grid.View(), {}, &s).ok());
  EXPECT_EQ(s.output_bytes(), 0u);
  EXPECT_TRUE(s.Run(nullptr, nullptr, nullptr).ok());
}

// One Sampler run from four threads at once, each on its own data and asking for 2 threads of
// the library's pool: every result is the free function's (ThreadSanitizer runs this).
TEST(SamplerThreads, OneSamplerRunsFromSeveralThreads) {
  if (!kSplits) GTEST_SKIP() << "no threads in this build";
  std::mt19937 rng(8);
  GridSampleOptions o = Options(Mode::kCubic, Padding::kReflection, false);
  o.threads.count = 2;
  const Tensor spec_x(DType::kFloat32, {1, 4, 40, 50});
  const Tensor spec_grid(DType::kFloat32, {1, 30, 60, 2});
  Sampler s;
  ASSERT_TRUE(Sampler::GridSample(spec_x.View(), spec_grid.View(), o, &s).ok());
  constexpr int kCallers = 4;
  std::vector<Tensor> xs, grids, wants;
  for (int t = 0; t < kCallers; ++t) {
    xs.push_back(RandomTensor(rng, DType::kFloat32, spec_x.shape()));
    grids.push_back(RandomGrid(rng, DType::kFloat32, spec_grid.shape()));
    wants.emplace_back(DType::kFloat32, OutputShape(s));
    ASSERT_TRUE(
        gridsample::GridSample(xs[t].View(), grids[t].View(), wants[t].MutableView(), o).ok());
  }
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) {
        Tensor y(DType::kFloat32, OutputShape(s));
        if (!s.Run(xs[t].data(), grids[t].data(), y.data()).ok()) ++failed;
        if (std::memcmp(y.data(), wants[t].data(), y.bytes()) != 0) ++wrong;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace gridsample_test
