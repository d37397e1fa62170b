// Threads (threads.h): every operator's output is the same, byte for byte, for every thread
// count, the library's pool and a caller's parallel-for, on every SIMD target; calls split only
// when large enough; concurrent callers share the pool safely; bad settings are errors.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "api/validation.h"
#include "drivers/fast.h"
#include "gridsample/gridsample.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "threading_util.h"
#include "threads/parallel.h"
#if GRIDSAMPLE_TEST_PTHREADPOOL
#include "gridsample/pthreadpool.h"
#endif

namespace gridsample_test {
namespace {

GRIDSAMPLE_INSTANTIATE_PER_TARGET(Threading);

TEST_P(Threading, GridSampleIsTheSameForEveryThreadCount) {
  std::mt19937 rng(7);
  struct Problem {
    DType x, grid;
    std::vector<int64_t> in, out;
    int64_t n, c;
  };
  const Problem problems[] = {
      {DType::kFloat32, DType::kFloat32, {40, 50}, {80, 90}, 2, 3},
      {DType::kFloat32, DType::kFloat32, {20, 30}, {8, 1100}, 1, 3},  // rows wider than a tile
      {DType::kUint8, DType::kFloat16, {40, 50}, {80, 90}, 2, 2},     // converted around float32
      {DType::kFloat32, DType::kFloat32, {12, 14, 16}, {20, 24, 28}, 1, 2},
      {DType::kFloat64, DType::kFloat32, {30, 30}, {90, 90}, 1, 2},  // the reference: one thread
  };
  for (const Problem& p : problems) {
    const Tensor x = RandomTensor(rng, p.x, TensorShape(p.n, p.c, p.in));
    const Tensor grid = RandomGrid(rng, p.grid, GridShape(p.n, p.out));
    const Tensor y(p.x, TensorShape(p.n, p.c, p.out));
    for (Mode m : kModes) {
      for (Padding pad : kPaddings) {
        for (bool align : kAligns) {
          const Runner run = [&](const Threads& threads, Tensor* out) {
            GridSampleOptions o{m, pad, align, threads};
            return gridsample::GridSample(x.View(), grid.View(), out->MutableView(), o);
          };
          const std::string what = std::string("GridSample ") + Name(p.x) + " rank " +
                                   std::to_string(p.in.size()) + " " +
                                   Describe({m, pad, align, {}});
          const bool split = ExpectSameForEveryThreading(run, y, what);
          gridsample::GridSampleGeometry g;
          EXPECT_TRUE(gridsample::ValidateGridSampleInputs(x.View(), grid.View(), &g).ok());
          const bool fast = gridsample::fast::Covers(gridsample::PlanesProblem{
              g, x.View(), gridsample::GridAt{grid.View()}, {}, {m, pad, align, {}}});
          EXPECT_EQ(split, fast && kSplits) << what << ": split " << split;
        }
      }
    }
  }
}

TEST_P(Threading, WarpFlowIsTheSameForEveryThreadCount) {
  std::mt19937 rng(8);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 3, 50, 60});
  Tensor flow(DType::kFloat32, {1, 2, 70, 80});
  for (int64_t i = 0; i < flow.size(); ++i) flow.Set(i, RandomDyadic(rng, -9, 9));
  const Tensor y(DType::kFloat32, {1, 3, 70, 80});
  for (Mode m : kModes) {
    for (Padding pad : kPaddings) {
      const Runner run = [&](const Threads& threads, Tensor* out) {
        return gridsample::WarpFlow(x.View(), flow.View(), out->MutableView(),
                                    GridSampleOptions{m, pad, false, threads});
      };
      ExpectSameForEveryThreading(run, y, "WarpFlow " + Describe({m, pad, false, {}}));
    }
  }
}

// The channels-last operators on uint8 and float32 images of `channels` (3: the blend's tail;
// more than 4: vectors of channels), with and without fill, into an output of ho x wo pixels.
void ExpectImageWarpsSameForEveryThreadCount(const std::string& target, int64_t ho, int64_t wo,
                                             const std::vector<int64_t>& channels) {
  std::mt19937 rng(9);
  const int64_t h = 64, w = 80;
  const double a = 0.3, s = 1.1;
  const double theta_values[] = {s * std::cos(a), -s * std::sin(a), 0.1,
                                 s * std::sin(a), s * std::cos(a),  -0.05};
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {theta_values, theta_values + 6});
  const Tensor homography =
      MakeTensor(DType::kFloat64, {1, 3, 3}, {0.8, 0.1, 3, -0.05, 0.9, 2, 0.0004, 0.0002, 1});
  const Tensor grid = RandomGrid(rng, DType::kFloat32, {1, ho, wo, 2});
  Tensor map(DType::kFloat32, {1, ho, wo, 2}), map_x(DType::kFloat32, {1, ho, wo}),
      map_y(DType::kFloat32, {1, ho, wo});
  for (int64_t i = 0; i < map.size(); ++i) map.Set(i, RandomDyadic(rng, -5, 85));
  for (int64_t i = 0; i < map_x.size(); ++i) map_x.Set(i, RandomDyadic(rng, -5, 85));
  for (int64_t i = 0; i < map_y.size(); ++i) map_y.Set(i, RandomDyadic(rng, -5, 70));
  for (DType dt : {DType::kUint8, DType::kFloat32}) {
    for (int64_t c : channels) {
      const Tensor x = RandomTensor(rng, dt, {1, h, w, c});
      const Tensor y(dt, {1, ho, wo, c});
      std::vector<double> fill_values = {7, 20, 40, 90};
      fill_values.resize(std::max<size_t>(4, static_cast<size_t>(c)), 55);
      for (Mode m : kModes) {
        for (Padding pad : kPaddings) {
          const double* fill = pad == Padding::kZeros ? fill_values.data() : nullptr;
          using Op = std::function<Status(const GridSampleOptions&, const MutableTensorView&)>;
          const std::vector<std::pair<std::string, Op>> ops = {
              {"GridSampleChannelsLast",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::GridSampleChannelsLast(x.View(), grid.View(), out, o);
               }},
              {"WarpAffine",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::WarpAffine(x.View(), theta.View(), out, o, fill);
               }},
              {"WarpPerspective",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::WarpPerspective(x.View(), homography.View(), out, o, fill);
               }},
              {"Remap (interleaved map)",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::Remap(x.View(), map.View(), out, o, fill);
               }},
              {"Remap (planes)",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::Remap(x.View(), map_x.View(), map_y.View(), out, o, fill);
               }},
              {"WarpFlowChannelsLast",
               [&](const GridSampleOptions& o, const MutableTensorView& out) {
                 return gridsample::WarpFlowChannelsLast(x.View(), map.View(), out, o, fill);
               }},
          };
          for (const auto& named : ops) {
            const std::string& name = named.first;
            const Op& op = named.second;
            const Runner run = [&](const Threads& threads, Tensor* out) {
              return op(GridSampleOptions{m, pad, true, threads}, out->MutableView());
            };
            const std::string what = name + " " + Name(dt) + " C=" + std::to_string(c) + " " +
                                     Describe({m, pad, true, {}}) + " to " + std::to_string(ho) +
                                     "x" + std::to_string(wo);
            const bool split = ExpectSameForEveryThreading(run, y, what);
            if (target != "SCALAR") {
              EXPECT_EQ(split, kSplits) << what << ": split " << split;
            }
          }
        }
      }
    }
  }
}

TEST_P(Threading, ImageWarpsAreTheSameForEveryThreadCount) {
  ExpectImageWarpsSameForEveryThreadCount(target(), 90, 100, {3, 4});
}

// Rows wider than a tile of plans (256 cubic pixels, 512 others): a row's segments are work
// units of their own, which threads may finish in any order (the reversed parallel-for runs
// the later segment first). 600 columns end on a partial segment. Three channels: the blends
// store their pixels as four lanes, the last written over by the next pixel (issue 26).
// GridSampleChannelsLast walks its 16 rows as one line of 9,600 pixels: 19 tiles, enough for
// nearest's cheap pixels to be split, ending mid-row.
TEST_P(Threading, ImageWarpsOfWideRowsAreTheSameForEveryThreadCount) {
  ExpectImageWarpsSameForEveryThreadCount(target(), 16, 600, {3});
}

// Many channels: the vectors-of-channels blend and a fill colour of 33 values.
TEST_P(Threading, ImageWarpsOfManyChannelsAreTheSameForEveryThreadCount) {
  ExpectImageWarpsSameForEveryThreadCount(target(), 60, 80, {33});
}

TEST_P(Threading, AffineGridIsTheSameForEveryThreadCount) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (bool align : kAligns) {
      const Tensor theta2 = MakeTensor(dt, {2, 2, 3},
                                       {0.9, -0.3, 0.1, 0.2, 1.1, -0.2,  //
                                        1.2, 0.1, 0.0, -0.1, 0.8, 0.3});
      const int64_t size2[] = {2, 3, 300, 400};
      const Tensor theta3 = MakeTensor(
          dt, {1, 3, 4}, {0.9, -0.3, 0.1, 0.05, 0.2, 1.1, -0.2, 0, 0.1, 0.0, 0.95, -0.1});
      const int64_t size3[] = {1, 1, 30, 40, 50};
      struct Case {
        const Tensor* theta;
        const int64_t* size;
        size_t len;
        std::vector<int64_t> grid;
      };
      const Case cases[] = {{&theta2, size2, 4, {2, 300, 400, 2}},
                            {&theta3, size3, 5, {1, 30, 40, 50, 3}}};
      for (const Case& k : cases) {
        const Runner run = [&](const Threads& threads, Tensor* out) {
          return gridsample::AffineGrid(k.theta->View(), k.size, k.len, out->MutableView(),
                                        AffineGridOptions{align, threads});
        };
        const std::string what = std::string("AffineGrid ") + Name(dt) + " rank " +
                                 std::to_string(k.len - 2) + (align ? " align" : "");
        EXPECT_EQ(ExpectSameForEveryThreading(run, Tensor(dt, k.grid), what), kSplits)
            << what << ": split or not";
      }
    }
  }
}

// Small calls run on the calling thread: the parallel-for is never asked.
TEST(ThreadingSplit, SmallCallsAreNotSplit) {
  std::mt19937 rng(10);
  Recorder recorder;
  const Threads threads = Host(16, &Reversed, &recorder);
  const Tensor theta = MakeTensor(DType::kFloat32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const int64_t size[] = {1, 3, 64, 64};
  Tensor grid(DType::kFloat32, {1, 64, 64, 2});
  ASSERT_TRUE(gridsample::AffineGrid(theta.View(), size, 4, grid.MutableView(),
                                     AffineGridOptions{false, threads})
                  .ok());
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 8, 16, 16});
  const Tensor g = RandomGrid(rng, DType::kFloat32, {1, 16, 16, 2});
  Tensor y(DType::kFloat32, {1, 8, 16, 16});
  ASSERT_TRUE(
      gridsample::GridSample(x.View(), g.View(), y.MutableView(),
                             GridSampleOptions{Mode::kLinear, Padding::kZeros, false, threads})
          .ok());
  EXPECT_EQ(recorder.calls, 0);
}

// Several callers at once, each asking for 2 threads: one has the pool, the others run on
// their own threads; every result is right.
TEST(ThreadingSplit, ConcurrentCallersShareThePool) {
  if (!kSplits) GTEST_SKIP() << "no threads in this build";
  std::mt19937 rng(11);
  const Tensor x = RandomTensor(rng, DType::kUint8, {1, 120, 160, 4});
  const Tensor theta = MakeTensor(DType::kFloat64, {1, 2, 3}, {0.9, -0.2, 0.05, 0.25, 0.85, 0});
  Tensor expected(DType::kUint8, {1, 150, 170, 4});
  ASSERT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), expected.MutableView()).ok());
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        Tensor y(DType::kUint8, {1, 150, 170, 4});
        GridSampleOptions o;
        o.threads.count = 2;
        if (!gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), o).ok()) ++failed;
        if (std::memcmp(y.data(), expected.data(), y.bytes()) != 0) ++wrong;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

// Calls after idle time, when the pool's workers are asleep and each call decides whether to
// wake them (threads/wake_choice.h) after a first slice of its own: every result is right,
// woken or not (ThreadSanitizer runs this too).
TEST(ThreadingSplit, CallsAfterIdleTimeAreRight) {
  if (!kSplits) GTEST_SKIP() << "no threads in this build";
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 200, 160, 4});
  const Tensor theta = MakeTensor(DType::kFloat64, {1, 2, 3}, {0.9, -0.2, 0.05, 0.25, 0.85, 0});
  Tensor expected(DType::kFloat32, {1, 210, 170, 4});
  ASSERT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), expected.MutableView()).ok());
  GridSampleOptions o;
  o.threads.count = 2;
  int wrong = 0;
  for (int k = 0; k < 40; ++k) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));  // the workers look for 50 us
    Tensor y(DType::kFloat32, {1, 210, 170, 4});
    ASSERT_TRUE(gridsample::WarpAffine(x.View(), theta.View(), y.MutableView(), o).ok());
    wrong += std::memcmp(y.data(), expected.data(), y.bytes()) != 0;
  }
  EXPECT_EQ(wrong, 0);
}

TEST(ThreadingValidation, BadSettingsAreErrors) {
  const Tensor x(DType::kFloat32, {1, 1, 4, 4});
  const Tensor grid(DType::kFloat32, {1, 4, 4, 2});
  Tensor y(DType::kFloat32, {1, 1, 4, 4});
  y.FillBytes(0x11);
  GridSampleOptions o;
  o.threads.count = -1;
  Status s = gridsample::GridSample(x.View(), grid.View(), y.MutableView(), o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "GridSample: threads.count: expected 0 (one per hardware thread) or more, got -1");
  EXPECT_TRUE(y.AllBytesAre(0x11));
  int host = 0;
  o.threads = Host(2, nullptr, &host);
  s = gridsample::WarpAffine(x.View(), grid.View(), y.MutableView(), o);
  EXPECT_EQ(s.message(), "WarpAffine: threads.host is set without threads.parallel_for");
  AffineGridOptions ao;
  ao.threads.count = -3;
  const Tensor theta(DType::kFloat32, {1, 2, 3});
  const int64_t size[] = {1, 1, 4, 4};
  Tensor g(DType::kFloat32, {1, 4, 4, 2});
  s = gridsample::AffineGrid(theta.View(), size, 4, g.MutableView(), ao);
  EXPECT_EQ(s.message(),
            "AffineGrid: threads.count: expected 0 (one per hardware thread) or more, got -3");
}

#if GRIDSAMPLE_TEST_PTHREADPOOL
// The pthreadpool adapter: a host's pthreadpool_t runs the tiles.
TEST(ThreadingSplit, PthreadpoolRunsTheTiles) {
  std::mt19937 rng(12);
  const Tensor x = RandomTensor(rng, DType::kFloat32, {1, 3, 60, 70});
  const Tensor grid = RandomGrid(rng, DType::kFloat32, {1, 100, 110, 2});
  Tensor expected(DType::kFloat32, {1, 3, 100, 110}), y(DType::kFloat32, {1, 3, 100, 110});
  ASSERT_TRUE(gridsample::GridSample(x.View(), grid.View(), expected.MutableView()).ok());
  pthreadpool_t pool = pthreadpool_create(3);
  ASSERT_NE(pool, nullptr);
  GridSampleOptions o;
  o.threads = gridsample::PthreadpoolThreads(pool);
  EXPECT_EQ(o.threads.count, 3);
  ASSERT_TRUE(gridsample::GridSample(x.View(), grid.View(), y.MutableView(), o).ok());
  EXPECT_EQ(0, std::memcmp(y.data(), expected.data(), y.bytes()));
  pthreadpool_destroy(pool);
}
#endif

}  // namespace
}  // namespace gridsample_test
