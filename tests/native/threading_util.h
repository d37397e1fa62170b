// Helpers of the threading suites: parallel-fors that record or spread their tiles, and the
// check that an operator's output is the same, byte for byte, for every threading.
#ifndef GRIDSAMPLE_TESTS_NATIVE_THREADING_UTIL_H_
#define GRIDSAMPLE_TESTS_NATIVE_THREADING_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gridsample/threads.h"
#include "gtest/gtest.h"
#include "test_util.h"
#include "threads/parallel.h"
#include "threads/wake_choice.h"

namespace gridsample_test {

using gridsample::Threads;
using gridsample::TileTask;

// Whether this build splits calls at all (wasm without -pthread runs every call on the calling
// thread and cannot start std::threads).
constexpr bool kSplits = GRIDSAMPLE_HAS_THREADS;

// A caller's parallel-for that runs every tile on the calling thread, last tile first, and
// records what it was asked (so a test can tell that a call was split).
struct Recorder {
  int calls = 0;       // calls of the parallel-for (one per batch item for converted dtypes)
  bool split = false;  // some call had more than one tile
};
inline void Reversed(void* host, TileTask task, void* context, size_t range, size_t tile) {
  auto* r = static_cast<Recorder*>(host);
  ++r->calls;
  r->split = r->split || range > tile;
  for (size_t start = (range - 1) / tile * tile + tile; start > 0;) {
    start -= tile;
    task(context, start, std::min(tile, range - start));
  }
}

// A caller's parallel-for that runs each tile on a thread of its own, up to 16 at once: the
// wasm tests' pthread pool holds 32 workers (the library's pool takes some), and a thread
// beyond them would start only when the event loop runs, never while this one joins.
inline void EachOnAThread(void*, TileTask task, void* context, size_t range, size_t tile) {
  constexpr size_t kAtOnce = 16;
  std::vector<std::thread> threads;
  for (size_t start = 0; start < range; start += tile) {
    if (threads.size() == kAtOnce) {
      for (std::thread& t : threads) t.join();
      threads.clear();
    }
    threads.emplace_back([=] { task(context, start, std::min(tile, range - start)); });
  }
  for (std::thread& t : threads) t.join();
}

inline Threads Count(int count) {
  Threads t;
  t.count = count;
  return t;
}
inline Threads Host(int count, gridsample::ParallelFor parallel_for, void* host) {
  Threads t;
  t.count = count;
  t.parallel_for = parallel_for;
  t.host = host;
  return t;
}

// One operator on fixed inputs: writes its output for the given threads into y.
using Runner = std::function<Status(const Threads&, Tensor* y)>;

// Runs `run` with one thread, then with 2, 3 and one per hardware thread on the library's pool,
// and on the two parallel-fors above; every output must equal the one-thread output byte for
// byte. Returns whether the call was split into several pieces (the recorder saw it).
inline bool ExpectSameForEveryThreading(const Runner& run, const Tensor& y_shape,
                                        const std::string& what) {
  Tensor first = y_shape;
  first.FillBytes(0xA5);
  Status s = run(Count(1), &first);
  EXPECT_TRUE(s.ok()) << what << ": " << s.message();
  if (!s.ok()) return false;
  Recorder recorder;
  const std::vector<std::pair<std::string, Threads>> threadings = {
      {"2 threads", Count(2)},
      {"3 threads", Count(3)},
      {"a thread per core", Count(0)},
      {"reversed parallel-for", Host(4, &Reversed, &recorder)},
      {"a thread per tile", Host(4, &EachOnAThread, nullptr)},
  };
  for (const auto& [name, threads] : threadings) {
    Tensor y = y_shape;
    y.FillBytes(0x5A);
    s = run(threads, &y);
    EXPECT_TRUE(s.ok()) << what << " with " << name << ": " << s.message();
    if (!s.ok()) continue;
    EXPECT_EQ(0, std::memcmp(first.data(), y.data(), first.bytes()))
        << what << ": " << name << " changed the output";
  }
  return recorder.split;
}

// The calls below split as they do natively in every build (wasm's pieces are larger), and the
// pool runs every call they split (a call finding its workers asleep might run alone).
class Threading : public PerTargetTest {
 protected:
  void SetUp() override {
    PerTargetTest::SetUp();
    gridsample::SetMinPieceCostForTest(int64_t{1} << 16);
    gridsample::SetAlwaysWakeForTest(true);
  }
  void TearDown() override {
    gridsample::SetAlwaysWakeForTest(false);
    gridsample::SetMinPieceCostForTest(gridsample::kMinPieceCost);
    PerTargetTest::TearDown();
  }
};

}  // namespace gridsample_test

#endif  // GRIDSAMPLE_TESTS_NATIVE_THREADING_UTIL_H_
