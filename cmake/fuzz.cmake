# The libFuzzer targets of tests/fuzz (GRIDSAMPLE_FUZZ=ON, clang), else their corpus replays and regression tests.
#
# GRIDSAMPLE_FUZZ=ON: the fuzzers, with the library instrumented for coverage (make fuzz:
# build/fuzz). Otherwise, in native test builds, the same targets linked with
# tests/fuzz/replay_main.cc replay tests/fuzz/corpus as ordinary tests.

set(GRIDSAMPLE_FUZZERS fuzz_grid_sample fuzz_affine_warp fuzz_validation)
if(GRIDSAMPLE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GRIDSAMPLE_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage feedback from the kernels too; without comparison tracing there, which made
  # the fuzzers 3x slower (the fuzz targets' own parsing keeps it).
  target_compile_options(gridsample PRIVATE -fsanitize=fuzzer-no-link
                         -fno-sanitize-coverage=trace-cmp)
  # One Highway target, the machine's best (static dispatch): compiling every attainable
  # target with ASan and coverage took most of CI's time; the GoogleTest suites check every
  # target against the reference.
  target_compile_options(gridsample PRIVATE -march=native)
  target_compile_definitions(gridsample PRIVATE HWY_COMPILE_ONLY_STATIC=1
                             GRIDSAMPLE_STATIC_DISPATCH=1)
endif()
find_package(GTest REQUIRED)  # tests/native/test_util.h includes gtest.h
foreach(fuzzer ${GRIDSAMPLE_FUZZERS})
  if(GRIDSAMPLE_FUZZ)
    set(target ${fuzzer})
    add_executable(${target} tests/fuzz/${fuzzer}.cc)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  else()
    set(target ${fuzzer}_replay)
    add_executable(${target} tests/fuzz/${fuzzer}.cc tests/fuzz/replay_main.cc)
    add_test(NAME ${fuzzer}_corpus
      COMMAND ${target} ${CMAKE_CURRENT_SOURCE_DIR}/tests/fuzz/corpus/${fuzzer})
    set_tests_properties(${fuzzer}_corpus PROPERTIES TIMEOUT 600)
  endif()
  # Oracle grids from the library's inline coordinate rules round as the library does.
  target_compile_options(${target} PRIVATE -ffp-contract=off)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/tests/native
                             ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels)
  target_link_libraries(${target} PRIVATE gridsample GTest::gtest)
endforeach()
if(NOT GRIDSAMPLE_FUZZ)
  # Fast-path bugs the fuzzers found, as deterministic tests (fail without ASan too).
  add_executable(gridsample_fuzz_regressions tests/fuzz/fast_path_regressions_test.cc)
  target_include_directories(gridsample_fuzz_regressions PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels
                             ${CMAKE_CURRENT_SOURCE_DIR}/tests/native)
  target_link_libraries(gridsample_fuzz_regressions PRIVATE gridsample GTest::gtest_main)
  gtest_discover_tests(gridsample_fuzz_regressions DISCOVERY_TIMEOUT 60)
endif()
