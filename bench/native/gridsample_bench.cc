// Google Benchmark of gridsample's public C++ API against the scalar reference and a memcpy floor,
// on inputs from bench/js/bench.mjs.
//
// Usage: gridsample_bench --inputs=DIR [--only=NAME] [--timing_only] [--targets] [--reps=N]
//          [--min_time=SECONDS] [--benchmark_...]
// DIR holds manifest.json and the raw little-endian inputs it names (bench.mjs writes them,
// so that every implementation, native or JS, sees the same bytes). Before timing, each
// workload runs once through the public API and once through the reference; the public
// output goes to DIR/<name>.native.bin (bench.mjs compares it with the peers) and the
// largest difference to the reference into DIR/native_checks.json. A GridSample workload
// whose manifest entry has a "baseline" (mode and padding of another workload) also gets
// NAME/baseline: the public API on the same inputs with those settings, timed in the same
// launch as NAME/public (not checked: it computes different values). --only=NAME loads and
// registers that workload only. --timing_only skips the checks and writes no file but
// Google Benchmark's own: it registers NAME/public, NAME/baseline (if any) and
// NAME/memcpy_floor only (bench.mjs launches it so, once per round, between rounds of
// onnxruntime-node). --targets adds NAME/target:T for every SIMD target T this CPU can run
// (gridsample::AvailableTargets()): the public API with dispatch forced to T, so that a
// default choice slower than a lower target shows in the report; for rgba8 (WarpAffine of
// uint8 RGBA) also the other channels-last kernels on its image, NAME.cl_grid_u8/target:T,
// NAME.cl_grid_f32/target:T (GridSampleChannelsLast on theta's grid) and NAME.warp_f32/target:T
// (WarpAffine of the image as float32). --threads=N adds NAME/threads:N: the public API on N
// threads of the library's pool (NAME/public is one thread).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gridsample/gridsample.h"
#include "workload.h"

namespace {

using gridsample::Status;
using nlohmann::json;

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

void Configure(benchmark::internal::Benchmark* b, int reps, double min_time) {
  b->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->MinTime(min_time)
      ->Repetitions(reps)
      // Every repetition goes to the JSON file (bench.mjs takes median and min from them);
      // the console shows only the aggregates.
      ->DisplayAggregatesOnly(true)
      ->ComputeStatistics("min", Min);
}

struct Flags {
  std::string dir;
  std::string only;  // empty: every workload of the manifest
  bool timing_only = false;
  bool targets = false;
  int threads = 1;  // > 1: also NAME/threads:N, the public API on N threads
  int reps = 7;
  double min_time = 0.05;
};

// Our own flags into `flags`; the rest (Google Benchmark's) into `rest`, after argv[0].
void ParseFlags(int argc, char** argv, Flags* flags, std::vector<char*>* rest) {
  rest->push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--inputs=", 0) == 0) {
      flags->dir = a.substr(9);
    } else if (a.rfind("--only=", 0) == 0) {
      flags->only = a.substr(7);
    } else if (a == "--timing_only") {
      flags->timing_only = true;
    } else if (a == "--targets") {
      flags->targets = true;
    } else if (a.rfind("--threads=", 0) == 0) {
      flags->threads = std::max(1, std::atoi(a.c_str() + 10));
    } else if (a.rfind("--reps=", 0) == 0) {
      flags->reps = std::max(1, std::atoi(a.c_str() + 7));
    } else if (a.rfind("--min_time=", 0) == 0) {
      flags->min_time = std::atof(a.c_str() + 11);
    } else {
      rest->push_back(argv[i]);
    }
  }
}

// Runs the reference, then the public API (its output left in w.y / w.y8 and written to
// DIR/<name>.native.bin) and, for threads > 1, the public API on that many threads (whether it
// wrote the same bytes); returns the workload's entry of native_checks.json.
json Check(const std::string& dir, Workload& w, int threads) {
  const bool rgba8 = w.op == "WarpAffineRGBA8";
  Status s = Run(w, Impl::kReference);
  if (!s.ok()) return {{"error", "reference: " + s.message()}};
  std::vector<double> ref;
  if (rgba8) {
    std::vector<uint8_t> hwc;
    ToInterleaved(w.y8_nchw, w.y_shape[1], w.y_shape[2], w.y_shape[3], &hwc);
    ref.assign(hwc.begin(), hwc.end());
  } else {
    ref.assign(w.y.begin(), w.y.end());
  }
  s = Run(w, Impl::kPublic);
  if (!s.ok()) return {{"error", "public API: " + s.message()}};
  double max_diff = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    // NaN-aware: a NaN on one side only is an infinite difference.
    const double d = std::fabs(ref[i] - (rgba8 ? static_cast<double>(w.y8[i]) : w.y[i]));
    if (!(d <= max_diff)) max_diff = std::isnan(d) ? INFINITY : d;
  }
  // The public API on `threads` threads: it must write the same bytes.
  bool threads_identical = true;
  if (threads > 1) {
    const std::vector<float> one_y = w.y;
    const std::vector<uint8_t> one_y8 = w.y8;
    s = Run(w, Impl::kPublic, threads);
    if (!s.ok()) return {{"error", "public API on threads: " + s.message()}};
    threads_identical =
        rgba8 ? one_y8 == w.y8 : std::memcmp(one_y.data(), w.y.data(), one_y.size() * 4) == 0;
  }
  const std::string out = dir + "/" + w.name + ".native.bin";
  const char* bytes = rgba8 ? reinterpret_cast<const char*>(w.y8.data())
                            : reinterpret_cast<const char*>(w.y.data());
  const size_t n = rgba8 ? w.y8.size() : w.y.size() * sizeof(float);
  std::ofstream(out, std::ios::binary).write(bytes, static_cast<std::streamsize>(n));
  return {{"max_abs_diff_vs_reference", max_diff},
          {"threads_identical", threads_identical},
          {"output", out},
          {"dtype", rgba8 ? "uint8" : "float32"},
          {"out_elems", w.out_elems}};
}

// Registers NAME/public, NAME/baseline (if the workload has one), NAME/reference (not with
// --timing_only), NAME/target:T (with --targets) and NAME/memcpy_floor.
void Register(Workload* p, const Flags& flags) {
  // `target`: the SIMD target forced while the benchmark runs ("" leaves dispatch alone).
  const auto api = [p](Impl impl, std::string target = "", int threads = 1) {
    return [p, impl, target, threads](benchmark::State& state) {
      const Status forced = gridsample::SetTarget(target);
      if (!forced.ok()) {
        state.SkipWithError(forced.message().c_str());
        return;
      }
      for (auto _ : state) {
        // A failing call would time nothing: the error goes to the report instead.
        const Status s = Run(*p, impl, threads);
        if (!s.ok()) {
          state.SkipWithError(s.message().c_str());
          break;
        }
        benchmark::ClobberMemory();
      }
      gridsample::SetTarget("");
    };
  };
  const auto add = [&](const char* variant, auto fn) {
    Configure(benchmark::RegisterBenchmark((p->name + variant).c_str(), fn), flags.reps,
              flags.min_time);
  };
  add("/public", api(Impl::kPublic));
  if (flags.threads > 1) {
    add(("/threads:" + std::to_string(flags.threads)).c_str(),
        api(Impl::kPublic, "", flags.threads));
  }
  if (p->has_baseline) add("/baseline", api(Impl::kBaseline));
  if (!flags.timing_only) add("/reference", api(Impl::kReference));
  if (flags.targets) {
    for (const std::string& t : gridsample::AvailableTargets()) {
      add(("/target:" + t).c_str(), api(Impl::kPublic, t));
      if (p->op != "WarpAffineRGBA8") continue;
      add((".cl_grid_u8/target:" + t).c_str(), api(Impl::kGridU8, t));
      add((".cl_grid_f32/target:" + t).c_str(), api(Impl::kGridF32, t));
      add((".warp_f32/target:" + t).c_str(), api(Impl::kWarpF32, t));
    }
  }
  add("/memcpy_floor", [n = p->floor_bytes](benchmark::State& state) {
    // Filled once so that first-touch page faults are not timed.
    std::vector<unsigned char> src(n, 1), dst(n, 0);
    for (auto _ : state) {
      std::memcpy(dst.data(), src.data(), n);
      benchmark::ClobberMemory();
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::vector<char*> rest;
  ParseFlags(argc, argv, &flags, &rest);
  if (flags.dir.empty()) {
    std::fprintf(
        stderr,
        "usage: %s --inputs=DIR [--only=NAME] [--timing_only] [--targets] [--threads=N] [--reps=N] "
        "[--min_time=S] [--benchmark_...]\n"
        "DIR is written by bench/js/bench.mjs (bench/run.sh runs both).\n",
        argv[0]);
    return 2;
  }
  int bench_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&bench_argc, rest.data());

  json manifest;
  try {
    std::ifstream in(flags.dir + "/manifest.json");
    manifest = json::parse(in);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot read %s/manifest.json: %s\n", flags.dir.c_str(), e.what());
    return 2;
  }

  benchmark::AddCustomContext("gridsample_active_target", gridsample::ActiveTarget());
  std::string available;
  for (const std::string& t : gridsample::AvailableTargets())
    available += (available.empty() ? "" : " ") + t;
  benchmark::AddCustomContext("gridsample_available_targets", available);
  std::vector<std::unique_ptr<Workload>> workloads;
  json checks = json::object();  // per workload: the check, or why it is not timed
  for (const json& j : manifest.at("workloads")) {
    const std::string name = j.value("name", "?");
    if (!flags.only.empty() && name != flags.only) continue;
    if (j.at("op").get<std::string>() == "WarpAffineRGBA8" && !GRIDSAMPLE_BENCH_WARP_AFFINE) {
      checks[name] = {
          {"unavailable", "not available yet (no WarpAffine in the C++ API this was built from)"}};
      continue;
    }
    auto w = std::make_unique<Workload>();
    std::string error;
    if (!LoadWorkload(flags.dir, j, w.get(), &error)) {
      checks[name] = {{"error", error}};
      continue;
    }
    if (!flags.timing_only) {
      checks[name] = Check(flags.dir, *w, flags.threads);
      if (checks[name].contains("error")) continue;
    }
    Register(w.get(), flags);
    workloads.push_back(std::move(w));
  }
  if (flags.timing_only && !checks.empty()) {
    // Nothing is written for bench.mjs in this mode: say why a workload cannot be timed.
    std::fprintf(stderr, "not timed: %s\n", checks.dump().c_str());
    return 1;
  }
  if (workloads.empty() && checks.empty()) {
    std::fprintf(stderr, "no workload %s in %s/manifest.json\n", flags.only.c_str(),
                 flags.dir.c_str());
    return 2;
  }
  if (!flags.timing_only)
    std::ofstream(flags.dir + "/native_checks.json") << checks.dump(2) << "\n";

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
