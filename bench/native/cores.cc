// Whether this machine's cores are independent for SIMD work: a multiply-add loop's time on one
// thread alone and on 2 threads at once (medians of interleaved repetitions, JSON on stdout).
// A ratio near 1 means two cores; near 2 means both threads share one core's SIMD units (a
// VM's vCPUs on one physical core's two hyperthreads), where no 2-thread speed-up is possible.
// bench/js/bench.mjs runs it in `make bench` (bench/README.md, "Threads").
//
// Usage: gridsample_cores [--reps=5] [--iterations=100000000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::printf(
      "{\"reps\": %d, \"alone_ms\": %.2f, \"together_ms\": %.2f, \"ratio_median\": %.3f, "
      "\"ratio_min\": %.3f, \"ratio_max\": %.3f, \"sink\": %d}\n",
      reps, Median(alone), Median(together), Median(ratio),
      *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()),
      static_cast<int>(sink[0] + sink[1]) & 1);
  return 0;
}
