# One-word workflows for gridsample (DESIGN.md section 5b): setup, native, test.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
CMAKE_NATIVE := cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release
CMAKE_ASAN := cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
	-DGRIDSAMPLE_SANITIZE=address,undefined

.PHONY: setup native asan test test-native test-asan clean

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

test-native: native
	build/native/gridsample_conformance tests/cases
	ctest --test-dir build/native --output-on-failure -j$(JOBS)

test-asan: asan
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build/asan --output-on-failure -j$(JOBS)

# README's test command: installs what is missing, builds everything, runs every suite.
test: setup
	$(MAKE) test-native
	$(MAKE) test-asan

clean:
	rm -rf build
