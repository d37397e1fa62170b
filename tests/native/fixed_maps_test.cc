// Maps given at preparation (Sampler::RemapFixed, WarpFlowChannelsLastFixed): the prepared plan
// runs on new images with the unprepared call's bytes in every mode, padding, alignment, dtype,
// channel count, fill and layout of the maps, non-finite and far positions included; the caller's
// maps may change after preparing; one Sampler runs from several threads at once.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gridsample/gridsample.h"
#include "gridsample/sampler.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "threading_util.h"

namespace gridsample_test {
namespace {

using gridsample::GridSampleOptions;
using gridsample::Mode;
using gridsample::Padding;
using gridsample::Sampler;
using gridsample::Status;

// Map values: mostly inside an image of side `side` (so that uint8 bilinear takes its
// fixed-point blend), some beyond each edge, far away, or not finite.
float MapValue(std::mt19937& rng, int64_t side, bool offsets) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const float r = u(rng);
  if (r < 0.02f) return std::numeric_limits<float>::quiet_NaN();
  if (r < 0.03f) return r < 0.025f ? std::numeric_limits<float>::infinity() : -1e30f;
  if (r < 0.04f) return 3e9f;
  const float lo = offsets ? -side * 0.3f : -2.0f;
  const float hi = offsets ? side * 0.3f : static_cast<float>(side) + 1.0f;
  if (r < 0.15f) return lo + (hi - lo) * u(rng);
  return offsets ? (u(rng) - 0.5f) * 3.0f : 0.5f + (side - 2.0f) * u(rng);
}

// A map of pairs (N, Ho, Wo, 2) and the same values as two planes.
struct Maps {
  Tensor pairs, x, y;
};
Maps RandomMaps(std::mt19937& rng, int64_t n, int64_t ho, int64_t wo, int64_t h, int64_t w,
                bool offsets) {
  Maps m{Tensor(DType::kFloat32, {n, ho, wo, 2}), Tensor(DType::kFloat32, {n, ho, wo}),
         Tensor(DType::kFloat32, {n, ho, wo})};
  auto* pairs = static_cast<float*>(m.pairs.data());
  auto* xs = static_cast<float*>(m.x.data());
  auto* ys = static_cast<float*>(m.y.data());
  for (int64_t p = 0; p < n * ho * wo; ++p) {
    xs[p] = pairs[2 * p] = MapValue(rng, w, offsets);
    ys[p] = pairs[2 * p + 1] = MapValue(rng, h, offsets);
  }
  return m;
}

GridSampleOptions Options(Mode mode, Padding padding, bool align) {
  GridSampleOptions o;
  o.mode = mode;
  o.padding = padding;
  o.align_corners = align;
  return o;
}

// The unprepared call of one layout: Remap or WarpFlowChannelsLast, pairs or planes.
Status Unprepared(bool offsets, bool planes, const Tensor& x, const Maps& m, Tensor* y,
                  const GridSampleOptions& o, const double* fill) {
  if (offsets) {
    return planes ? gridsample::WarpFlowChannelsLast(x.View(), m.x.View(), m.y.View(),
                                                     y->MutableView(), o, fill)
                  : gridsample::WarpFlowChannelsLast(x.View(), m.pairs.View(), y->MutableView(), o,
                                                     fill);
  }
  return planes ? gridsample::Remap(x.View(), m.x.View(), m.y.View(), y->MutableView(), o, fill)
                : gridsample::Remap(x.View(), m.pairs.View(), y->MutableView(), o, fill);
}

Status Prepared(bool offsets, bool planes, const Tensor& x, const Maps& m,
                const GridSampleOptions& o, const double* fill, Sampler* s) {
  if (offsets) {
    return planes ? Sampler::WarpFlowChannelsLastFixed(x.View(), m.x.View(), m.y.View(), o, fill, s)
                  : Sampler::WarpFlowChannelsLastFixed(x.View(), m.pairs.View(), o, fill, s);
  }
  return planes ? Sampler::RemapFixed(x.View(), m.x.View(), m.y.View(), o, fill, s)
                : Sampler::RemapFixed(x.View(), m.pairs.View(), o, fill, s);
}

// The first byte where two outputs differ, as text ("" when none).
std::string FirstDifference(const Tensor& got, const Tensor& want) {
  const auto* a = static_cast<const uint8_t*>(got.data());
  const auto* b = static_cast<const uint8_t*>(want.data());
  for (size_t i = 0; i < got.bytes(); ++i) {
    if (a[i] != b[i]) {
      return WhereInY(want, static_cast<int64_t>(i / gridsample::DTypeSize(want.dtype())));
    }
  }
  return "";
}

// The tests below on each SIMD target (PerTargetTest).
class FixedMapsPerTarget : public PerTargetTest {};

// Every mode, padding, alignment, dtype (float16: the kept copy), channel count, fill and
// layout: the prepared plan gives the unprepared call's bytes on two images, after the caller's
// maps were overwritten.
TEST_P(FixedMapsPerTarget, RunAsTheUnpreparedCallOnNewImages) {
  std::mt19937 rng(47);
  const double colour[7] = {7, 250, 31.5, 99, 1, 2, 3};
  for (bool offsets : {false, true}) {
    for (DType dtype : {DType::kUint8, DType::kFloat32, DType::kFloat16}) {
      for (int64_t c : {1, 2, 3, 4, 5, 7}) {
        for (Mode mode : {Mode::kLinear, Mode::kNearest, Mode::kCubic}) {
          for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
            for (bool align : {false, true}) {
              const GridSampleOptions o = Options(mode, padding, align);
              const int64_t h = 11, w = 14, ho = 5, wo = 23;
              const Tensor spec(dtype, {2, h, w, c});
              const Maps given = RandomMaps(rng, 2, ho, wo, h, w, offsets);
              for (bool planes : {false, true}) {
                const double* fill = padding == Padding::kZeros && planes ? colour : nullptr;
                Maps maps = given;
                Sampler s;
                ASSERT_TRUE(Prepared(offsets, planes, spec, maps, o, fill, &s).ok());
                ASSERT_EQ(s.input_count(), 1u);
                EXPECT_GT(s.plan_bytes(), 0u);
                maps = RandomMaps(rng, 2, ho, wo, h, w, offsets);  // the caller's maps change
                for (int run = 0; run < 2; ++run) {
                  const Tensor x = RandomTensor(rng, dtype, spec.shape());
                  Tensor want(dtype, {2, ho, wo, c}), got(dtype, {2, ho, wo, c});
                  ASSERT_TRUE(Unprepared(offsets, planes, x, given, &want, o, fill).ok());
                  const void* in = x.data();
                  ASSERT_TRUE(s.Run(&in, 1, got.data()).ok());
                  ASSERT_EQ(FirstDifference(got, want), "")
                      << (offsets ? "flow " : "remap ") << (planes ? "planes " : "pairs ")
                      << gridsample::DTypeName(dtype) << " C=" << c << " " << Describe(o)
                      << (fill ? " fill" : "") << " on " << gridsample::ActiveTarget();
                }
              }
            }
          }
        }
      }
    }
  }
}

// Outputs wider than a row segment, an undistortion-like map of RGBA uint8 bilinear (fixed
// point inside, planned at the edges) and float32 bicubic: the unprepared call's bytes.
TEST_P(FixedMapsPerTarget, WideOutputsAndALensMap) {
  std::mt19937 rng(48);
  const int64_t h = 40, w = 1300;
  for (DType dtype : {DType::kUint8, DType::kFloat32}) {
    for (Mode mode : {Mode::kLinear, Mode::kCubic, Mode::kNearest}) {
      for (int64_t c : {3, 4}) {
        Tensor map(DType::kFloat32, {1, h, w, 2});
        auto* m = static_cast<float*>(map.data());
        for (int64_t i = 0; i < h; ++i) {
          for (int64_t j = 0; j < w; ++j) {
            const double u = (j - w / 2.0) / w, v = (i - h / 2.0) / w;
            const double k = 1 + 0.3 * (u * u + v * v);
            m[2 * (i * w + j)] = static_cast<float>(w / 2.0 + u * k * w);
            m[2 * (i * w + j) + 1] = static_cast<float>(h / 2.0 + v * k * w);
          }
        }
        const GridSampleOptions o = Options(mode, Padding::kZeros, false);
        const Tensor x = RandomTensor(rng, dtype, {1, h, w, c});
        Sampler s;
        ASSERT_TRUE(Sampler::RemapFixed(x.View(), map.View(), o, nullptr, &s).ok());
        // The plan's size as sampler.h states it, where the fast path planned (SIMD targets):
        // 12 bytes per pixel for uint8 bilinear, and 4 plus 4 per tap for the pixels planned in
        // float (those whose taps leave X; all in the other modes), rows rounded up to vectors.
        const size_t pixels = static_cast<size_t>(h * (w + 16));
        const size_t taps = mode == Mode::kLinear ? 4 : mode == Mode::kNearest ? 1 : 16;
        const bool fixed = dtype == DType::kUint8 && mode == Mode::kLinear;
        if (target() != "SCALAR") {
          if (fixed) {
            EXPECT_GE(s.plan_bytes(), 12 * static_cast<size_t>(h * w));
            EXPECT_LE(s.plan_bytes(), 16 * pixels) << "few pixels leave X";
          }
          EXPECT_LE(s.plan_bytes(), ((fixed ? 12 : 0) + 4 + 4 * taps + 1) * pixels + 65536);
        }
        Tensor want(dtype, {1, h, w, c}), got(dtype, {1, h, w, c});
        ASSERT_TRUE(gridsample::Remap(x.View(), map.View(), want.MutableView(), o).ok());
        const void* in = x.data();
        ASSERT_TRUE(s.Run(&in, 1, got.data()).ok());
        EXPECT_EQ(FirstDifference(got, want), "")
            << gridsample::DTypeName(dtype) << " C=" << c << " " << Describe(o);
      }
    }
  }
}

// GridSampleChannelsLast with the grid given at preparation (its coordinates walked as one line
// per batch item, as the unprepared call walks them): the unprepared call's bytes for every
// mode, padding, alignment, dtype and channel count, a narrow and a wide output, and grids of
// other dtypes (kept).
TEST_P(FixedMapsPerTarget, GridSampleChannelsLastRunsAsTheUnpreparedCall) {
  std::mt19937 rng(51);
  const std::vector<std::vector<int64_t>> outs = {{5, 1}, {7, 23}, {3, 700}};
  for (DType dtype : {DType::kUint8, DType::kFloat32}) {
    for (int64_t c : {1, 3, 4, 6}) {
      for (Mode mode : {Mode::kLinear, Mode::kNearest, Mode::kCubic}) {
        for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
          for (size_t k = 0; k < outs.size(); ++k) {
            const GridSampleOptions o = Options(mode, padding, k == 1);
            const DType grid_dtype = k == 0 && c == 3 ? DType::kFloat64 : DType::kFloat32;
            const Tensor grid = RandomGrid(rng, grid_dtype, GridShape(2, outs[k]));
            const Tensor spec(dtype, {2, 9, 12, c});
            Sampler s;
            ASSERT_TRUE(Sampler::GridSampleChannelsLastFixed(spec.View(), grid.View(), o, &s).ok());
            ASSERT_EQ(s.input_count(), 1u);
            const Tensor x = RandomTensor(rng, dtype, spec.shape());
            Tensor want(dtype, {2, outs[k][0], outs[k][1], c}), got(dtype, want.shape());
            ASSERT_TRUE(
                gridsample::GridSampleChannelsLast(x.View(), grid.View(), want.MutableView(), o)
                    .ok());
            const void* in = x.data();
            ASSERT_TRUE(s.Run(&in, 1, got.data()).ok());
            ASSERT_EQ(FirstDifference(got, want), "")
                << gridsample::DTypeName(dtype) << " C=" << c << " " << Describe(o) << " out "
                << outs[k][0] << "x" << outs[k][1] << " grid " << gridsample::DTypeName(grid_dtype);
          }
        }
      }
    }
  }
}

// A plan runs on the target that made it, even after SetTarget: its bytes stay those of the
// unprepared call on that target.
TEST(FixedMaps, RunOnTheTargetThatPlanned) {
  std::vector<std::string> targets = gridsample::AvailableTargets();
  targets.erase(std::remove(targets.begin(), targets.end(), "SCALAR"), targets.end());
  if (targets.size() < 2) GTEST_SKIP() << "one SIMD target here";
  std::mt19937 rng(50);
  const Tensor x = RandomTensor(rng, DType::kUint8, {1, 30, 40, 4});
  const Maps maps = RandomMaps(rng, 1, 20, 50, 30, 40, false);
  const GridSampleOptions o = Options(Mode::kLinear, Padding::kZeros, false);
  ASSERT_TRUE(gridsample::SetTarget(targets.back()).ok());
  Sampler s;
  ASSERT_TRUE(Sampler::RemapFixed(x.View(), maps.pairs.View(), o, nullptr, &s).ok());
  Tensor want(DType::kUint8, {1, 20, 50, 4}), got(DType::kUint8, {1, 20, 50, 4});
  ASSERT_TRUE(gridsample::Remap(x.View(), maps.pairs.View(), want.MutableView(), o).ok());
  ASSERT_TRUE(gridsample::SetTarget(targets.front()).ok());
  const void* in = x.data();
  const Status st = s.Run(&in, 1, got.data());
  gridsample::SetTarget("");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(FirstDifference(got, want), "") << "planned on " << targets.back();
}

// The maps' data is read when preparing: null maps are refused then, and Run takes X alone.
TEST(FixedMaps, ErrorsAtPreparationAndRun) {
  const Tensor x(DType::kUint8, {1, 4, 5, 4});
  Tensor map(DType::kFloat32, {1, 3, 3, 2});
  TensorView no_data = map.View();
  no_data.data = nullptr;
  Sampler s;
  Status st = Sampler::RemapFixed(x.View(), no_data, {}, nullptr, &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("map"), std::string::npos) << st.message();
  EXPECT_FALSE(s.prepared());
  const Tensor wrong_n(DType::kFloat32, {2, 3, 3, 2});
  EXPECT_FALSE(Sampler::RemapFixed(x.View(), wrong_n.View(), {}, nullptr, &s).ok());
  ASSERT_TRUE(Sampler::RemapFixed(x.View(), map.View(), {}, nullptr, &s).ok());
  Tensor y(DType::kUint8, {1, 3, 3, 4});
  const void* two[2] = {x.data(), map.data()};
  st = s.Run(two, 2, y.data());
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("expected 1 input"), std::string::npos) << st.message();
  const void* null_x = nullptr;
  EXPECT_FALSE(s.Run(&null_x, 1, y.data()).ok());
  const void* in = x.data();
  EXPECT_TRUE(s.Run(&in, 1, y.data()).ok());
  EXPECT_EQ(s.plan_bytes() > 0, true);
  Sampler plain;
  ASSERT_TRUE(Sampler::Remap(x.View(), map.View(), {}, nullptr, &plain).ok());
  EXPECT_EQ(plain.plan_bytes(), 0u);
}

// One prepared map run from four threads at once, each on its own image and asking for 2
// threads of the library's pool: every result is the unprepared call's.
TEST(FixedMapsThreads, OneSamplerRunsFromSeveralThreads) {
  if (!kSplits) GTEST_SKIP() << "no threads in this build";
  std::mt19937 rng(49);
  for (DType dtype : {DType::kUint8, DType::kFloat32}) {
    GridSampleOptions o =
        Options(dtype == DType::kUint8 ? Mode::kLinear : Mode::kCubic, Padding::kReflection, false);
    o.threads.count = 2;
    const int64_t h = 60, w = 70;
    const Maps maps = RandomMaps(rng, 1, 50, 90, h, w, false);
    const Tensor spec(dtype, {1, h, w, 4});
    Sampler s;
    ASSERT_TRUE(
        Sampler::RemapFixed(spec.View(), maps.x.View(), maps.y.View(), o, nullptr, &s).ok());
    constexpr int kCallers = 4;
    std::vector<Tensor> xs, wants;
    for (int t = 0; t < kCallers; ++t) {
      xs.push_back(RandomTensor(rng, dtype, spec.shape()));
      wants.emplace_back(dtype, std::vector<int64_t>{1, 50, 90, 4});
      ASSERT_TRUE(
          gridsample::Remap(xs[t].View(), maps.x.View(), maps.y.View(), wants[t].MutableView(), o)
              .ok());
    }
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < kCallers; ++t) {
      callers.emplace_back([&, t] {
        for (int k = 0; k < 10; ++k) {
          Tensor y(dtype, {1, 50, 90, 4});
          const void* in = xs[t].data();
          if (!s.Run(&in, 1, y.data()).ok()) ++failed;
          if (std::memcmp(y.data(), wants[t].data(), y.bytes()) != 0) ++wrong;
        }
      });
    }
    for (std::thread& t : callers) t.join();
    EXPECT_EQ(failed.load(), 0);
    EXPECT_EQ(wrong.load(), 0);
  }
}

GRIDSAMPLE_INSTANTIATE_PER_TARGET(FixedMapsPerTarget);

}  // namespace
}  // namespace gridsample_test
