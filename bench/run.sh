#!/usr/bin/env bash
# Entry point of `make bench`: installs the peers (npm ci), builds, runs every benchmark and writes bench/RESULTS.md (stdout: the report; logs on stderr).
#
# Environment: BENCH_SKIP_BUILD=1 uses js/dist and build/bench as they are (no make wasm, no
# CMake build); extra arguments go to bench/js/bench.mjs (e.g. --only img2d,vol3d --quick).
set -euo pipefail
BENCH="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(dirname "$BENCH")"
cd "$ROOT"

# Debian packages: the build's, and valgrind for the instruction counts.
scripts/setup.sh valgrind >&2

# Peers from the committed lockfile (scripts/npm_ci.sh).
# The package's and the tests' packages too: the whole-model rows run js/onnx.mjs on the
# models tests/js makes, and the ONNX Runtime rows encode their models with onnx-proto.
scripts/npm_ci.sh bench js tests/js >&2

if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
  # Both wasm variants into js/dist (incremental when `make wasm` already ran).
  make -C "$ROOT" wasm >&2
  # The Google Benchmark binary: its own small CMake project building the library with it.
  cmake -S "$BENCH" -B "$ROOT/build/bench" -DCMAKE_BUILD_TYPE=Release >/dev/null
  # And the memory bandwidth program of the scaling model (native/membw.cc).
  cmake --build "$ROOT/build/bench" -j"$(nproc)" --target gridsample_bench gridsample_membw gridsample_cores gridsample_attention >&2
fi

for f in js/dist/gridsample-simd.wasm js/dist/gridsample-scalar.wasm build/bench/gridsample_bench build/bench/gridsample_membw build/bench/gridsample_cores build/bench/gridsample_attention; do
  if [ ! -e "$ROOT/$f" ]; then
    echo "bench/run.sh: $f is missing (run without BENCH_SKIP_BUILD=1 to build it)" >&2
    exit 1
  fi
done

# --expose-gc: the harness collects garbage at the start of each round of samples (js/timing.mjs).
exec node --expose-gc "$BENCH/js/bench.mjs" --native "$ROOT/build/bench/gridsample_bench" \
  --out "$BENCH/RESULTS.md" "$@"
