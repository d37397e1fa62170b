# One-word workflows for gridsample (DESIGN.md section 5b): setup, native, wasm, test.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
CMAKE_NATIVE := cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release
CMAKE_ASAN := cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
	-DGRIDSAMPLE_SANITIZE=address,undefined

# emcc 3.1.6 from Debian finds its node modules (acorn) only through NODE_PATH.
export NODE_PATH := /usr/share/nodejs
WASM_VARIANTS := simd scalar

.PHONY: setup native asan wasm test test-js test-native test-asan test-wasm clean

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

# Both wasm variants into js/dist (ready for npm pack). The two glue files share one .wasm.
wasm:
	@set -e; for v in $(WASM_VARIANTS); do \
	  emcmake cmake -S . -B build/wasm-$$v -DCMAKE_BUILD_TYPE=Release \
	    -DGRIDSAMPLE_WASM_SIMD=$$( [ $$v = simd ] && echo ON || echo OFF ) >/dev/null; \
	  cmake --build build/wasm-$$v -j$(JOBS) --target gridsample_wasm_web gridsample_wasm_node; \
	  cmp build/wasm-$$v/gridsample-$$v.wasm build/wasm-$$v/gridsample-$$v-node.wasm; \
	  mkdir -p js/dist; \
	  cp build/wasm-$$v/gridsample-$$v.wasm build/wasm-$$v/gridsample-$$v.mjs js/dist/; \
	  cp build/wasm-$$v/gridsample-$$v-node.cjs js/dist/gridsample-$$v.cjs; \
	done; ls -l js/dist

# The GoogleTest suites and the conformance runner built with em++, run under Node.
test-wasm: wasm
	@set -e; for v in $(WASM_VARIANTS); do \
	  cmake --build build/wasm-$$v -j$(JOBS); \
	  ctest --test-dir build/wasm-$$v --output-on-failure; \
	done

# The npm package's tests (node:test), the wasm conformance runner and the browser checks.
test-js: wasm
	scripts/test_js.sh

test-native: native
	build/native/gridsample_conformance tests/cases
	ctest --test-dir build/native --output-on-failure -j$(JOBS)

test-asan: asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build/asan --output-on-failure -j$(JOBS)

# README's test command: installs what is missing, builds everything, runs every suite.
test: setup
	$(MAKE) test-native
	$(MAKE) test-asan
	$(MAKE) test-wasm
	$(MAKE) test-js

clean:
	rm -rf build
