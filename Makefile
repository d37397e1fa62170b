# One-word workflows for gridsample (DESIGN.md section 5b): setup, native, wasm, test.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
CMAKE_NATIVE := cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DGRIDSAMPLE_BUILD_TESTS=ON
# At -O1 with frame pointers (GRIDSAMPLE_SANITIZE adds them), as sanitizer users build; asserts
# stay on (no NDEBUG). Line tables are what ASan's reports need: full -g at -O1 took one
# Highway file (drivers/planes_driver.cc) over 11 CPU minutes to compile. Of the x86 targets
# ASan compiles AVX3 (512-bit vectors), AVX2 (256) and EMU128 (128): SSE4 and SSSE3 read and
# write memory as EMU128 does (16-byte vectors, the same tails) and cost 2 of its 5 compiles
# of every kernel (about 70 s of make test); the native suite runs their results.
CMAKE_ASAN := cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -gline-tables-only' \
	-DCMAKE_CXX_COMPILER=clang++ -DGRIDSAMPLE_SANITIZE=address,undefined -DGRIDSAMPLE_BUILD_TESTS=ON \
	'-DGRIDSAMPLE_HWY_DISABLED_TARGETS=HWY_SSE4|HWY_SSSE3'
# ThreadSanitizer build of the tests, for the threading suite (tests/native/threads_test.cc):
# the band splits and pools are the same code on every target, so AVX2 and EMU128 only.
CMAKE_TSAN := cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	-DGRIDSAMPLE_SANITIZE=thread -DGRIDSAMPLE_BUILD_TESTS=ON \
	'-DGRIDSAMPLE_HWY_DISABLED_TARGETS=HWY_AVX3|HWY_SSE4|HWY_SSSE3'
CMAKE_ARM := cmake -S . -B build/arm64 -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DGRIDSAMPLE_BUILD_TESTS=ON
# libFuzzer targets (tests/fuzz): clang, ASan + UBSan, optimised, library instrumented for coverage.
CMAKE_FUZZ := cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DCMAKE_CXX_COMPILER=clang++ \
	-DGRIDSAMPLE_SANITIZE=address,undefined -DGRIDSAMPLE_FUZZ=ON -DGRIDSAMPLE_BUILD_TESTS=OFF
FUZZERS := fuzz_grid_sample fuzz_affine_warp fuzz_validation
FUZZ_SECONDS ?= 60

# emcc 3.1.6 from Debian finds its node modules (acorn) only through NODE_PATH.
export NODE_PATH := /usr/share/nodejs
# Every CMake build with Ninja: unlike CMake's Makefiles, it compiles the tests' objects while
# the library's slowest file still compiles (under ASan at -O1, drivers/planes_driver.cc
# alone took 6 of the build's 8 minutes with the second core idle). A build folder made by
# another generator: make clean (or remove that folder).
export CMAKE_GENERATOR := Ninja
# ccache (scripts/setup.sh installs it), when present, in front of every compiler CMake finds
# (g++, clang++, the aarch64 cross compiler, em++): sources compiled before with the same flags,
# in this clone or another (CI clones anew each time), are taken from ~/.cache/ccache; about 800
# of make test's 1,750 s were compiles. Paths under the clone are hashed relative to it
# (base_dir) and the build folder's path is left out of the hash (hash_dir), so that clones
# share entries; the debug info of an object so shared names the clone that compiled it first.
# g++'s precompiled header for the suites is cached under the sloppiness ccache's manual asks
# for; Clang's records the clone's paths, so Clang builds under ccache do without it
# (cmake/tests.cmake). Depend mode: a miss runs the compiler alone, not the preprocessor first
# (em++ is a Python script: the wasm SIMD build with an empty cache took 54 s instead of 72-77).
# A build folder configured before ccache was installed keeps compiling without it (make clean).
# Used only where ccache can write its cache (a CI user without a home folder compiles as before).
CCACHE_USABLE := $(shell d=$$(ccache -k cache_dir 2>/dev/null) && mkdir -p "$$d" 2>/dev/null && [ -w "$$d" ] && echo yes)
ifeq ($(CCACHE_USABLE),yes)
export CMAKE_C_COMPILER_LAUNCHER := ccache
export CMAKE_CXX_COMPILER_LAUNCHER := ccache
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
export CCACHE_DEPEND := 1
endif
WASM_VARIANTS := simd scalar simd-threads
# The variants that also ship a core module (GridSample and AffineGrid only; gridsample/core).
WASM_CORE_VARIANTS := simd

.PHONY: setup native asan tsan arm wasm demo bench test test-js test-native test-asan test-tsan \
	test-arm test-wasm fuzz test-fuzz check-format clean

setup:
	@scripts/setup.sh

# Release build with the system compiler (g++): library, tests, conformance runner.
native:
	$(CMAKE_NATIVE) >/dev/null
	cmake --build build/native -j$(JOBS)

# Debug build with clang, AddressSanitizer and UndefinedBehaviorSanitizer.
asan:
	$(CMAKE_ASAN) >/dev/null
	cmake --build build/asan -j$(JOBS)

# The test binary with clang and ThreadSanitizer.
tsan:
	$(CMAKE_TSAN) >/dev/null
	cmake --build build/tsan -j$(JOBS) --target gridsample_tests

# Static aarch64 build (Highway's NEON target) with Debian's cross compiler.
arm:
	$(CMAKE_ARM) >/dev/null
	cmake --build build/arm64 -j$(JOBS)

# The wasm variants into js/dist (ready for npm pack). A variant's two glue files share one
# .wasm; the threaded one also has a pthread worker script for each (the Node one as .cjs). The
# SIMD variant also links its core module (cmake/wasm.cmake): two links more, no compile.
# The two are linked one after the other: the threaded build's two links at once gave
# different .wasm files. A configured build folder is not configured again (4 s a variant;
# cmake --build reconfigures by itself when a CMake file changed), so test-wasm and test-js
# after it cost no rebuild. Then gridsample/onnx's protobuf schema, generated from onnx.proto
# (scripts/gen_onnx_schema.sh; quick when up to date).
wasm:
	@set -e; for v in $(WASM_VARIANTS); do \
	  [ -f build/wasm-$$v/CMakeCache.txt ] || \
	  emcmake cmake -S . -B build/wasm-$$v -DCMAKE_BUILD_TYPE=Release -DGRIDSAMPLE_BUILD_TESTS=ON \
	    -DGRIDSAMPLE_WASM_SIMD=$$( [ $$v = scalar ] && echo OFF || echo ON ) \
	    -DGRIDSAMPLE_WASM_THREADS=$$( [ $$v = simd-threads ] && echo ON || echo OFF ) >/dev/null; \
	  cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_wasm_web; \
	  cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_wasm_node; \
	  cmp build/wasm-$$v/gridsample-$$v.wasm build/wasm-$$v/gridsample-$$v-node.wasm; \
	  mkdir -p js/dist; \
	  cp build/wasm-$$v/gridsample-$$v.wasm build/wasm-$$v/gridsample-$$v.mjs js/dist/; \
	  cp build/wasm-$$v/gridsample-$$v-node.cjs js/dist/gridsample-$$v.cjs; \
	  if [ -e build/wasm-$$v/gridsample-$$v.worker.js ]; then \
	    cp build/wasm-$$v/gridsample-$$v.worker.js js/dist/; \
	    cp build/wasm-$$v/gridsample-$$v-node.worker.js js/dist/gridsample-$$v.worker.cjs; \
	  fi; \
	  for m in $(WASM_CORE_VARIANTS); do [ $$m = $$v ] || continue; \
	    cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_core_wasm_web; \
	    cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_core_wasm_node; \
	    cmp build/wasm-$$v/gridsample-core-$$v.wasm build/wasm-$$v/gridsample-core-$$v-node.wasm; \
	    cp build/wasm-$$v/gridsample-core-$$v.wasm build/wasm-$$v/gridsample-core-$$v.mjs js/dist/; \
	    cp build/wasm-$$v/gridsample-core-$$v-node.cjs js/dist/gridsample-core-$$v.cjs; \
	  done; \
	done
	scripts/gen_onnx_schema.sh
	ls -l js/dist

# The GoogleTest suites and the conformance runner built with em++, run under Node. The scalar
# variant runs the conformance runner only: its kernels are Highway's EMU128 code, which the
# native and ASan suites test on every target (EMU128 included), and test-js runs its golden
# cases and hostile inputs through the package (its suite's em++ build was 90 s of make test).
test-wasm: wasm
	@set -e; for v in $(WASM_VARIANTS); do \
	  if [ $$v = scalar ]; then \
	    cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_conformance; \
	    ctest --no-tests=error --test-dir build/wasm-$$v --output-on-failure -R '^conformance_golden_cases$$'; \
	  else \
	    cmake --build build/wasm-$$v -j$(JOBS); \
	    ctest --no-tests=error --test-dir build/wasm-$$v --output-on-failure; \
	  fi; \
	done

# The npm package's tests (node:test), the wasm conformance runner and the browser checks.
test-js: wasm
	scripts/test_js.sh

# ctest runs the conformance runner too (conformance_golden_cases).
test-native: native
	ctest --no-tests=error --test-dir build/native --output-on-failure -j$(JOBS)

# The threading suites run under ASan on AVX3 and AVX2 only: their band splits are the same code on
# every target, each target's kernels are in the other suites here, and TSan runs them whole
# (on EMU128 with SSE4 and SSSE3 it was 72 of the suite's 253 CPU seconds).
test-asan: asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 GTEST_FILTER='-PerTarget/*Threading.*/EMU128' \
	  ctest --no-tests=error --test-dir build/asan --output-on-failure -j$(JOBS)

# The threading tests under ThreadSanitizer (libpthreadpool is not instrumented: its test is left
# to the other builds), in ctest's four shards side by side (one process: 84 s).
test-tsan: tsan
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 GTEST_FILTER='*Thread*:-*Pthreadpool*' \
	  ctest --no-tests=error --test-dir build/tsan --output-on-failure -j$(JOBS) -R '^gridsample_tests_shard_'

# The same tests and conformance runner on aarch64 (NEON), run under qemu-aarch64.
test-arm: arm
	ctest --no-tests=error --test-dir build/arm64 --output-on-failure -j$(JOBS)

# Builds the fuzz targets in build/fuzz and runs each for FUZZ_SECONDS (one job each, as many at
# once as there are cores) from a scratch copy of tests/fuzz/corpus; fails on any finding
# (tests/fuzz/README.md).
fuzz:
	$(CMAKE_FUZZ) >/dev/null
	cmake --build build/fuzz -j$(JOBS) --target $(FUZZERS)
	tests/fuzz/run_fuzzers.sh build/fuzz $(FUZZ_SECONDS) $(FUZZERS)

test-fuzz: fuzz

# The C++ sources against .clang-format (scripts/check_format.sh --fix rewrites them).
check-format:
	scripts/check_format.sh

# README's test command: installs what is missing, builds everything, runs every suite, and
# ends with a table of each step's wall time.
test:
	@scripts/timed_steps.sh "$(MAKE)" setup check-format test-native test-asan test-tsan \
	  "test-fuzz FUZZ_SECONDS=20" test-arm test-wasm test-js

# README's main command: installs what is missing, builds the wasm package and serves web/demo
# on 127.0.0.1 (prints the URL; PORT=8090 make demo, or make demo PORT=8090, picks the port).
# The ONNX page also needs web/demo's npm packages (onnxruntime-web, @bufbuild/protobuf: js/'s
# optional peers are the app's to install) and web/demo/vendor/ (vendor.mjs).
demo: setup
	$(MAKE) wasm
	scripts/npm_ci.sh js web/demo
	node web/demo/vendor.mjs
	node web/demo/server.mjs

# Peer benchmarks (not a test): writes bench/RESULTS.md. BENCH_SKIP_BUILD=1 skips the builds.
bench:
	bench/run.sh

clean:
	rm -rf build
