// Whether this machine's cores are independent for SIMD work: a multiply-add loop's time on one
// thread alone and on 2 threads at once (medians of interleaved repetitions, JSON on stdout).
// A ratio near 1 means two cores; near 2 means both threads share one core's SIMD units (a
// VM's vCPUs on one physical core's two hyperthreads), where no 2-thread speed-up is possible.
// Then the same in short bursts after idle time, as a call in a frame loop meets them: about 1 ms
// of the loop on one thread, and on 2 threads at once (a waiting thread woken as the library's
// pool wakes its workers), each after 20 ms of sleep. On this project's VM the long loops run
// on two cores while the bursts after sleep run on about one (bench/README.md, "Threads").
// bench/js/bench.mjs runs it in `make bench` (bench/README.md, "Threads").
//
// Usage: gridsample_cores [--reps=5] [--iterations=100000000]
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "median.h"

namespace {

using Clock = std::chrono::steady_clock;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CORES_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CORES_CLONES
#endif

typedef float V8 __attribute__((vector_size(32)));

// Eight independent multiply-add chains, enough to fill the SIMD units; seconds taken.
CORES_CLONES double Spin(long iterations, volatile float* sink) {
  // Values read from volatiles, so that the compiler cannot fold the loop.
  static volatile float start_value = 1.0f, scale = 0.9999999f, shift = 1e-7f;
  V8 a[8];
  for (int i = 0; i < 8; ++i) a[i] = V8{} + (start_value + static_cast<float>(i) * 1e-7f);
  const V8 m = V8{} + scale, c = V8{} + shift;
  const auto start = Clock::now();
  for (long k = 0; k < iterations; ++k) {
    for (int i = 0; i < 8; ++i) a[i] = a[i] * m + c;
  }
  float s = 0;
  for (int i = 0; i < 8; ++i) s += a[i][0];
  *sink = s;  // a volatile store before the clock: the loop cannot move past it
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Short bursts after `idle`: medians of Spin(iterations) alone and of two at once, the second
// on a thread that waits on a condition variable between bursts; ratio medians in `ratio`.
void Bursts(int reps, long iterations, std::chrono::milliseconds idle, volatile float* sink,
            std::vector<double>* alone, std::vector<double>* together, std::vector<double>* ratio) {
  std::mutex m;
  std::condition_variable cv;
  int posted = 0, done = 0;
  bool stop = false;
  double other = 0;
  std::thread helper([&] {
    std::unique_lock<std::mutex> lock(m);
    for (int seen = 0;;) {
      cv.wait(lock, [&] { return stop || posted != seen; });
      if (stop) return;
      seen = posted;
      lock.unlock();
      other = Spin(iterations, sink + 1);
      lock.lock();
      ++done;
      cv.notify_all();
    }
  });
  for (int r = 0; r < reps; ++r) {
    std::this_thread::sleep_for(idle);
    const double one = Spin(iterations, sink);
    std::this_thread::sleep_for(idle);
    const auto start = Clock::now();
    {
      std::lock_guard<std::mutex> lock(m);
      ++posted;
    }
    cv.notify_all();
    Spin(iterations, sink);
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return done == posted; });
    }
    const double both = std::chrono::duration<double>(Clock::now() - start).count();
    (void)other;
    alone->push_back(one * 1e3);
    together->push_back(both * 1e3);
    ratio->push_back(both / one);
  }
  {
    std::lock_guard<std::mutex> lock(m);
    stop = true;
  }
  cv.notify_all();
  helper.join();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  long iterations = 100000000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--reps=", 0) == 0) {
      reps = std::max(1, std::atoi(a.c_str() + 7));
    } else if (a.rfind("--iterations=", 0) == 0) {
      iterations = std::max(1L, std::atol(a.c_str() + 13));
    } else {
      std::fprintf(stderr, "usage: %s [--reps=5] [--iterations=100000000]\n", argv[0]);
      return 2;
    }
  }
  static volatile float sink[2];
  std::vector<double> alone, together, ratio;
  Spin(iterations / 10, sink);  // warm up the clocks
  for (int r = 0; r < reps; ++r) {
    const double one = Spin(iterations, sink);
    double other = 0;
    std::thread t([&] { other = Spin(iterations, sink + 1); });
    const double mine = Spin(iterations, sink);
    t.join();
    const double both = std::max(mine, other);
    alone.push_back(one * 1e3);
    together.push_back(both * 1e3);
    ratio.push_back(both / one);
  }
  // Bursts of about 1 ms (a 200th of the long loop, which takes about 0.2 s here).
  std::vector<double> burst_alone, burst_together, burst_ratio;
  Bursts(std::max(reps, 1) * 8, std::max(1L, iterations / 200), std::chrono::milliseconds(20), sink,
         &burst_alone, &burst_together, &burst_ratio);
  std::printf(
      "{\"reps\": %d, \"alone_ms\": %.2f, \"together_ms\": %.2f, \"ratio_median\": %.3f, "
      "\"ratio_min\": %.3f, \"ratio_max\": %.3f, \"burst_alone_ms\": %.3f, "
      "\"burst_together_ms\": %.3f, \"burst_ratio_median\": %.3f, \"sink\": %d}\n",
      reps, Median(alone), Median(together), Median(ratio),
      *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()),
      Median(burst_alone), Median(burst_together), Median(burst_ratio),
      static_cast<int>(sink[0] + sink[1]) & 1);
  return 0;
}
