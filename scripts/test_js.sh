#!/usr/bin/env bash
# Runs the npm package's JavaScript tests (after `make wasm`): installs the test-only npm packages, the wasm conformance runner for both variants, then node --test.
set -euo pipefail
cd "$(dirname "$0")/.."

for v in simd scalar simd-threads; do
  for ext in wasm mjs cjs; do
    f="js/dist/gridsample-$v.$ext"
    if [ ! -f "$f" ]; then
      echo "test_js.sh: $f is missing; run 'make wasm' first" >&2
      exit 1
    fi
  done
done
if [ ! -f js/dist/onnx_pb.mjs ]; then
  echo "test_js.sh: js/dist/onnx_pb.mjs is missing; run 'make wasm' first" >&2
  exit 1
fi

# js/'s devDependencies (its optional peers @bufbuild/protobuf and jpeg-js, which the tests
# import js/ directly with, and protoc-gen-es), the test-only packages (onnxruntime-web and
# -node, pngjs as an independent PNG decoder, vite, playwright-core, typescript, eslint) and
# the demo's (onnxruntime-web, and rolldown for web/demo/vendor.mjs, which demo_onnx.test.mjs
# runs).
scripts/npm_ci.sh js tests/js web/demo

# Headless Chromium for the packaging test (Debian's, installed by scripts/setup.sh).
export GRIDSAMPLE_CHROMIUM="${GRIDSAMPLE_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$GRIDSAMPLE_CHROMIUM" ]; then
  echo "test_js.sh: no Chromium at $GRIDSAMPLE_CHROMIUM (apt-get install chromium)" >&2
  exit 1
fi

# WebGPU tests in Node (tests/js/lib/node_webgpu.mjs) fail rather than skip here: setup.sh
# installs what they need (chromium's SwiftShader, libvulkan1).
export GRIDSAMPLE_REQUIRE_WEBGPU=1

status=0
# ESLint's recommended rules over the project's JavaScript (the config and eslint are tests/js's).
echo "== eslint js web/demo tests/js bench/js bench/gpu examples"
tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.mjs js web/demo tests/js bench/js bench/gpu examples || status=1

for v in simd scalar; do
  echo "== node tests/js/conformance.mjs tests/cases --variant $v"
  node tests/js/conformance.mjs tests/cases --variant "$v" || status=1
done

# As many test files at once as there are cores (Node 20 runs one fewer): each packs, installs
# and serves from its own temporary folder and port. The slowest files start first, so that the
# last ones to finish are short (on 2 cores, in seconds run alone: demo_onnx 101, cli_onnx 71,
# cli 45, demo 39, packaging 39, webgpu_chromium 30, webgpu 28, onnx_webgpu 25, hostile 23; the
# other files about 55 together). cli, demo and packaging are since split in two (cli_warps and
# cli_io, demo_warps and demo_sources, packaging_browser and packaging_node), each half packing
# and installing or starting its own server and Chromium; hostile's slow parts are hostile_limits
# and cli_hostile_args. onnx_webgpu_sizes and onnx_webgpu_sizes_all: 35 s each. Since: transformers
# 140 (its Vite pages in Chromium 101), onnx_memory 50 (peak RSS in processes of their own),
# transformers_detr 42 (30 of them its WebGPU pipeline on SwiftShader; measured at load 6);
# demo_onnx 74-92 since three of its tests share one page (114-129 before, back to back at load 3-5).
# In make test at 530dfe7 (2 files at once): onnx_webgpu's provider test 51 s, webgpu's hostile
# grids 47 s, webgpu_chromium's golden cases 43 s: they start before the smaller files.
slowest=(transformers demo_onnx cli_onnx onnx_webgpu onnx_memory webgpu webgpu_chromium transformers_detr cli_warps cli_io demo_warps demo_sources packaging_browser packaging_node onnx_webgpu_sizes onnx_webgpu_sizes_all hostile_limits cli_hostile_args)
files=()
for name in "${slowest[@]}"; do files+=("tests/js/$name.test.mjs"); done
for f in tests/js/*.test.mjs; do
  case " ${files[*]} " in *" $f "*) ;; *) files+=("$f") ;; esac
done
# A file that has not finished in 15 minutes (the slowest takes under 4 on a loaded machine) is
# stopped and fails, its process killed, whether a test stalls (a browser or GPU) or a handle
# keeps it open after its tests: make test fails instead of holding CI until its limit.
# No --test-force-exit: under it, Node 20 ended a file's process while its second suite ran and
# counted the file as passed (nodejs/node#54327; onnxruntime.test.mjs's AffineGrid suite, once in
# three runs). completeness_reporter.mjs fails the run when any test announced was never
# reported, however its process ended.
# --no-concurrent-recompilation (passed on to each file's process): Node 20 can deadlock at exit
# when a background TurboFan job waits for a garbage collection the exiting main thread never
# runs (nodejs/node#54918). Caught here with gdb: a file's process, its tests done, stuck in
# NodePlatform::Shutdown joining a V8 worker parked in CollectionBarrier::AwaitCollectionBackground
# for 6 minutes; it is the likely stall of the CI run that reached its 5400 s limit.
echo "== node --test tests/js"
node --no-concurrent-recompilation --test --test-concurrency="$(nproc)" --test-timeout=900000 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./tests/js/lib/completeness_reporter.mjs --test-reporter-destination=stderr \
  "${files[@]}" || status=1
exit $status
