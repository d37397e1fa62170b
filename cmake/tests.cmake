# The native gtest suites, the conformance runner and the install check; under qemu (aarch64) or Node (wasm) when cross compiling.

enable_testing()
if(CMAKE_CROSSCOMPILING)
  # GoogleTest from Debian's sources, built with the cross compiler; tests run under
  # Node (with direct access to the host file system: the golden cases) or qemu.
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest ${CMAKE_CURRENT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest_main)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
  add_library(nlohmann_json INTERFACE)
  target_include_directories(nlohmann_json SYSTEM INTERFACE ${GRIDSAMPLE_SYSINC})
  add_library(nlohmann_json::nlohmann_json ALIAS nlohmann_json)
  if(EMSCRIPTEN)
    # SINGLE_FILE: Node 20 cannot fetch a separate .wasm from 3.1.6 glue (DESIGN.md 4).
    add_link_options(-sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -sSINGLE_FILE=1)
    if(GRIDSAMPLE_WASM_THREADS)
      # Threads start synchronously only from a pool made before main(): enough for the
      # threading tests' std::threads (a parallel-for that starts one per tile, three callers,
      # the library's pool).
      add_link_options(-sPTHREAD_POOL_SIZE=32)
    endif()
    # Plain Node: the toolchain's default emulator passes a flag Node 20 rejects.
    find_program(GRIDSAMPLE_RUNNER node REQUIRED)
  else()
    set(GRIDSAMPLE_RUNNER ${CMAKE_CROSSCOMPILING_EMULATOR})  # qemu-aarch64
  endif()
else()
  set(GRIDSAMPLE_RUNNER "")  # native binaries run directly
  find_package(GTest REQUIRED)
  find_package(nlohmann_json 3 REQUIRED)
endif()
include(GoogleTest)

add_library(gridsample_case_loader STATIC tests/native/case_loader.cc tests/native/case_files.cc
            tests/native/case_runner.cc)
target_include_directories(gridsample_case_loader
  PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/tests/native ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels)
target_link_libraries(gridsample_case_loader PUBLIC gridsample nlohmann_json::nlohmann_json)

add_executable(gridsample_conformance tests/native/conformance_main.cc)
target_link_libraries(gridsample_conformance PRIVATE gridsample_case_loader)
set_target_properties(gridsample_conformance PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

file(GLOB GRIDSAMPLE_TEST_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/tests/native/*_test.cc)
if(GRIDSAMPLE_SANITIZE STREQUAL "thread" OR GRIDSAMPLE_WASM_THREADS)
  # ThreadSanitizer runs the threading suites only (Makefile's test-tsan), and the wasm build
  # with threads needs no more (the same kernels as the SIMD build's, whose suite runs them all):
  # the files that hold them, not the 40 others (half of those steps' time was compiling them).
  list(FILTER GRIDSAMPLE_TEST_SOURCES INCLUDE REGEX "/(threads|wake_choice|deformable_attention_fast|sampler|fixed_maps)_test\\.cc$")
endif()
# The planner and the blends on their own (tests/native/probes: the Probe* entry points of
# plan_test and blend_test), compiled as the library's kernels are but kept out of the
# installed library.
add_library(gridsample_probes OBJECT
  tests/native/probes/plan_probe.cc
  tests/native/probes/blend_probe.cc)
gridsample_kernel_settings(gridsample_probes)
target_include_directories(gridsample_probes PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/native)
target_link_libraries(gridsample_probes PRIVATE gridsample)

add_executable(gridsample_tests ${GRIDSAMPLE_TEST_SOURCES})
target_link_libraries(gridsample_tests PRIVATE gridsample_probes gridsample_case_loader
                      GTest::gtest_main)
# The golden cases' folder, an absolute path: on that file alone, so that the other suites and
# the precompiled header compile the same in every clone (ccache shares them: Makefile).
set_source_files_properties(tests/native/golden_cases_test.cc PROPERTIES COMPILE_DEFINITIONS
  GRIDSAMPLE_CASES_DIR="${CMAKE_CURRENT_SOURCE_DIR}/tests/cases")
# The tests compute oracle grids with the library's inline coordinate rules
# (perspective_rule.h, pixel_rule.h): they must round as the library does, without FMA
# contraction (g++ contracts across statements by default where FMA is baseline, e.g. aarch64).
target_compile_options(gridsample_tests PRIVATE -ffp-contract=off)
# The suites' own code at -O1 whatever the build type (the library and the probes they test keep
# it): -O3 took 1.7x the compile time of -O1 (g++, warp_flow_test.cc: 7.2 against 4.2 CPU
# seconds), in the native, aarch64 and wasm builds of the suite alike.
target_compile_options(gridsample_tests PRIVATE -O1)
if(EMSCRIPTEN)
  # The test programs link with binaryen at -O1, not the build type's -O3: the objects are the
  # same -O3 code, and -O3's wasm-opt passes took 36 of a test link's 38 CPU seconds to save 4 s
  # of the suite's run. The package's modules (wasm.cmake) keep -O3.
  target_link_options(gridsample_tests PRIVATE -O1)
  target_link_options(gridsample_conformance PRIVATE -O1)
endif()
# GoogleTest and the standard headers the suites share, parsed once instead of in each of them
# (em++, idle machine: about 1.8 s of a suite's 2.7 to 7.7 s, in each of the seven test builds).
# Not with Clang (the sanitizer builds, em++) under ccache (Makefile): Clang's header records
# this clone's paths, so every suite that includes it would miss the cache in the next clone,
# where without it they are taken from the cache.
if(NOT (CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
  target_precompile_headers(gridsample_tests PRIVATE <gtest/gtest.h> <cmath> <cstdint>
                            <functional> <limits> <random> <string> <vector>)
endif()
# The pthreadpool adapter (gridsample/pthreadpool.h) against Debian's libpthreadpool, where it
# is installed (host builds only: Debian ships no static or cross-compiled library).
if(NOT CMAKE_CROSSCOMPILING)
  find_path(GRIDSAMPLE_PTHREADPOOL_INCLUDE pthreadpool.h)
  find_library(GRIDSAMPLE_PTHREADPOOL_LIB pthreadpool)
  if(GRIDSAMPLE_PTHREADPOOL_INCLUDE AND GRIDSAMPLE_PTHREADPOOL_LIB)
    target_compile_definitions(gridsample_tests PRIVATE GRIDSAMPLE_TEST_PTHREADPOOL=1)
    target_link_libraries(gridsample_tests PRIVATE ${GRIDSAMPLE_PTHREADPOOL_LIB})
  endif()
endif()
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR STREQUAL aarch64)
  # Under qemu, two processes, each a GoogleTest shard, side by side under ctest -j: every start
  # re-reads the golden cases (11 s a process; 145 s as one process per test), and one process
  # left the second core idle for the 45 s of its run.
  # The threading suites took 33 of the run's 69 s (emulated threads): their band splits are the
  # same code on every target, run natively, under TSan and in wasm with threads; the NEON
  # kernels are in the other suites.
  foreach(shard RANGE 1)
    add_test(NAME gridsample_tests_shard_${shard}
             COMMAND ${GRIDSAMPLE_RUNNER} $<TARGET_FILE:gridsample_tests>
                     --gtest_filter=-PerTarget/*Threading.*)
    set_tests_properties(gridsample_tests_shard_${shard} PROPERTIES
      ENVIRONMENT "GTEST_TOTAL_SHARDS=2;GTEST_SHARD_INDEX=${shard}")
  endforeach()
elseif(CMAKE_CROSSCOMPILING)
  # wasm under Node, one process: Node gives an Emscripten program none of its environment (no
  # GTEST_* shard variables).
  add_test(NAME gridsample_tests COMMAND ${GRIDSAMPLE_RUNNER} $<TARGET_FILE:gridsample_tests>)
else()
  # Four processes, each a GoogleTest shard (every 4th test), run side by side by ctest -j: one
  # process per test spent more in starting processes than in testing (under ASan, 204 s of
  # test time against 73 s in one process). One test: gridsample_tests --gtest_filter=Suite.Name;
  # a filter for every shard: the GTEST_FILTER environment variable (Makefile's test-asan).
  foreach(shard RANGE 3)
    add_test(NAME gridsample_tests_shard_${shard} COMMAND gridsample_tests)
    set_tests_properties(gridsample_tests_shard_${shard} PROPERTIES
      ENVIRONMENT "GTEST_TOTAL_SHARDS=4;GTEST_SHARD_INDEX=${shard}")
  endforeach()
endif()
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR STREQUAL aarch64)
  # The fast paths tested under qemu are Highway's NEON ones, not an emulated fallback.
  add_test(NAME fast_paths_target_is_neon
    COMMAND ${GRIDSAMPLE_RUNNER} $<TARGET_FILE:gridsample_tests>
            --gtest_filter=FastPaths.TargetsAreCompiled)
  set_tests_properties(fast_paths_target_is_neon PROPERTIES
    PASS_REGULAR_EXPRESSION "dispatch picks NEON\\)")
endif()

add_test(NAME conformance_golden_cases
  COMMAND ${GRIDSAMPLE_RUNNER} $<TARGET_FILE:gridsample_conformance>
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/cases)

# README's build, install and find_package(gridsample) from a separate project, as a user runs
# them: its own build of the library with the default compiler, independent of this build's
# settings (host only; once, in the plain build: the sanitizer builds would repeat it).
if(NOT CMAKE_CROSSCOMPILING AND NOT GRIDSAMPLE_SANITIZE)
  add_test(NAME install_and_consume
    COMMAND ${CMAKE_COMMAND}
      -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DBUILD_DIR=${CMAKE_CURRENT_BINARY_DIR}
      -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/consumer/install_and_consume.cmake)
  # Its own build of the library is the longest test (about 80 CPU seconds when fresh): under
  # ctest -j it starts first, beside the others, also before ctest has measured it.
  set_tests_properties(install_and_consume PROPERTIES COST 1000)
endif()
