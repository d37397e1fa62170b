// Streaming memory bandwidth on 1 and 2 threads: a copy and a read-only sum of buffers
// far larger than L3 (DRAM) and of an L3-resident size; medians of several repetitions, JSON on
// stdout. bench/js/bench.mjs runs it in `make bench`; the scaling model of
// bench/js/report_scaling.mjs caps its estimates with these figures (bench/README.md, "Scaling
// model").
//
// Usage: gridsample_membw [--large_mib=256] [--l3_mib=N] [--threads=1,2] [--reps=7] [--min_ms=20]
//
// Sizes: "large" buffers of --large_mib MiB each (a copy reads one and writes another), and
// "l3" buffers of an eighth of the L3 size (read from /sys, or --l3_mib), so that a copy's two
// buffers fill a quarter of L3 (this VM shares its host's L3 with other tenants: buffers of a
// quarter of it already copied at times at DRAM speed on one thread). With T threads each takes a
// contiguous 1/T of the buffers. A repetition is as many passes over the buffers as take at least
// --min_ms (counted once, on its T threads, before the repetitions); its time runs from the moment
// every thread is started and waiting to the moment the last one finished. Bandwidth = bytes moved
// / time, in GB/s (1e9 bytes per second): a copy moves 2 x size (read + written, as the model
// counts a call's traffic; its ordinary stores also read each destination line first, uncounted, as
// a kernel's output stores do), a read moves size. The repetitions of every (size, kernel, threads)
// are interleaved, one of each per round, so that a drift of the machine's speed hits all alike.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "median.h"

namespace {

using Clock = std::chrono::steady_clock;

// The sum is built for AVX2 where the CPU has it (the bench builds for baseline x86-64), so that
// one core's loads, not the instruction width, limit the read.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MEMBW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MEMBW_CLONES
#endif

// Sum of n words: 16 accumulators, which the compiler makes four AVX2 vectors (or eight SSE2
// ones), so that the adds do not limit the loads.
MEMBW_CLONES uint64_t SumWords(const uint64_t* p, size_t n) {
  uint64_t a[16] = {};
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j) a[j] += p[i + j];
  }
  for (; i < n; ++i) a[0] += p[i];
  uint64_t sum = 0;
  for (uint64_t x : a) sum += x;
  return sum;
}

// dst[i] = src[i] ^ key: a copy with ordinary stores, as the kernels write their outputs.
// `key` is 0, read through a volatile so that the compiler cannot turn the loop into a memcpy
// call: glibc's memcpy switches to non-temporal stores above a size threshold (here between 4
// and 8 MiB per call), which made one thread copying an L3-sized buffer run at DRAM speed.
MEMBW_CLONES void CopyWords(uint64_t* __restrict dst, const uint64_t* __restrict src, size_t n,
                            uint64_t key) {
  for (size_t i = 0; i < n; ++i) dst[i] = src[i] ^ key;
}

volatile uint64_t g_key = 0;
std::atomic<uint64_t> g_sink{0};  // keeps the sums alive

enum class Kernel { kCopy, kRead };

struct Buffers {
  uint64_t* src = nullptr;
  uint64_t* dst = nullptr;
  size_t words = 0;
};

// One thread's share [begin, end) of the words, `passes` times.
void RunShare(Kernel kernel, const Buffers& b, size_t begin, size_t end, int passes) {
  uint64_t sum = 0;
  const uint64_t key = g_key;
  for (int pass = 0; pass < passes; ++pass) {
    if (kernel == Kernel::kCopy) {
      CopyWords(b.dst + begin, b.src + begin, end - begin, key);
    } else {
      sum += SumWords(b.src + begin, end - begin);
    }
  }
  g_sink.fetch_add(sum, std::memory_order_relaxed);
}

// Seconds for `passes` passes over the buffers split among `threads` threads.
double TimeTeam(Kernel kernel, const Buffers& b, int threads, int passes) {
  std::atomic<int> ready{0};
  std::vector<std::thread> team;
  const auto share = [&](int t) {
    const size_t begin = b.words * t / threads, end = b.words * (t + 1) / threads;
    ready.fetch_add(1);
    while (ready.load() < threads) {
    }
    RunShare(kernel, b, begin, end, passes);
  };
  for (int t = 1; t < threads; ++t) team.emplace_back(share, t);
  // The calling thread is thread 0; the clock starts once all have arrived.
  ready.fetch_add(1);
  while (ready.load() < threads) {
  }
  const auto start = Clock::now();
  RunShare(kernel, b, 0, b.words / threads, passes);
  for (auto& th : team) th.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// L3 size in bytes from /sys (sysconf's figure is wrong in some VMs), 0 if unknown.
size_t L3Bytes() {
  std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string s;
  if (in >> s && !s.empty()) {
    size_t v = std::strtoull(s.c_str(), nullptr, 10);
    const char unit = s.back();
    if (unit == 'K') v <<= 10;
    if (unit == 'M') v <<= 20;
    if (v) return v;
  }
  const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return v > 0 ? static_cast<size_t>(v) : 0;
}

uint64_t* Allocate(size_t bytes) {
  void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) {
    std::fprintf(stderr, "membw: cannot allocate %zu bytes\n", bytes);
    std::exit(1);
  }
  std::memset(p, 1, bytes);  // first touch before timing
  return static_cast<uint64_t*>(p);
}

struct Config {
  const char* size_name;
  Buffers buffers;
  Kernel kernel;
  int threads;
  int passes = 1;
  std::vector<double> gbps;
};

}  // namespace

int main(int argc, char** argv) {
  size_t large_mib = 256, l3_bytes = L3Bytes();
  int reps = 7;
  double min_ms = 20;
  std::vector<int> thread_counts = {1, 2};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = value("--large_mib=")) {
      large_mib = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--l3_mib=")) {
      l3_bytes = std::strtoull(v, nullptr, 10) << 20;
    } else if (const char* v = value("--reps=")) {
      reps = std::max(1, std::atoi(v));
    } else if (const char* v = value("--min_ms=")) {
      min_ms = std::atof(v);
    } else if (const char* v = value("--threads=")) {
      thread_counts.clear();
      for (const char* p = v; *p;) {
        char* next = nullptr;
        const long n = std::strtol(p, &next, 10);
        if (next == p) break;
        thread_counts.push_back(std::max(1, static_cast<int>(n)));
        p = *next == ',' ? next + 1 : next;
      }
    } else {
      std::fprintf(stderr,
                   "usage: %s [--large_mib=256] [--l3_mib=N] [--threads=1,2] [--reps=7] "
                   "[--min_ms=20]\n",
                   argv[0]);
      return 2;
    }
  }
  const bool l3_known = l3_bytes > 0;
  if (!l3_known) l3_bytes = size_t{32} << 20;  // assumed when neither /sys nor sysconf says

  const size_t large = large_mib << 20, small = l3_bytes / 8;
  const Buffers big{Allocate(large), Allocate(large), large / sizeof(uint64_t)};
  const Buffers l3{Allocate(small), Allocate(small), small / sizeof(uint64_t)};

  std::vector<Config> configs;
  for (const auto& [name, b] : {std::pair<const char*, Buffers>{"large", big}, {"l3", l3}}) {
    for (Kernel k : {Kernel::kCopy, Kernel::kRead}) {
      for (int t : thread_counts) configs.push_back({name, b, k, t, 1, {}});
    }
  }
  // Passes per repetition: enough for min_ms on the config's threads (counted from one warm
  // pass), so that every repetition is as long and as exposed to other work on the machine.
  for (Config& c : configs) {
    const double once = TimeTeam(c.kernel, c.buffers, c.threads, 1);
    c.passes = std::max(1, static_cast<int>(std::ceil(min_ms / 1e3 / std::max(once, 1e-9))));
  }
  for (int r = 0; r < reps; ++r) {
    for (Config& c : configs) {
      const double s = TimeTeam(c.kernel, c.buffers, c.threads, c.passes);
      const double bytes = static_cast<double>(c.buffers.words * sizeof(uint64_t)) * c.passes *
                           (c.kernel == Kernel::kCopy ? 2 : 1);
      c.gbps.push_back(bytes / s / 1e9);
    }
  }

  std::printf("{\n  \"l3_bytes\": %zu,\n  \"l3_known\": %s,\n  \"reps\": %d,\n  \"results\": [",
              l3_bytes, l3_known ? "true" : "false", reps);
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    std::printf(
        "%s\n    {\"size\": \"%s\", \"buffer_bytes\": %zu, \"kernel\": \"%s\", \"threads\": %d, "
        "\"passes\": %d, \"gbps_median\": %.3f, \"gbps_min\": %.3f, \"gbps_max\": %.3f}",
        i ? "," : "", c.size_name, c.buffers.words * sizeof(uint64_t),
        c.kernel == Kernel::kCopy ? "copy" : "read", c.threads, c.passes, Median(c.gbps),
        *std::min_element(c.gbps.begin(), c.gbps.end()),
        *std::max_element(c.gbps.begin(), c.gbps.end()));
  }
  std::printf("\n  ],\n  \"sink\": %llu\n}\n", static_cast<unsigned long long>(g_sink.load() & 1));
  return 0;
}
