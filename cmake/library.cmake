# The kernel library gridsample (its one list of sources), its Highway setup and its install as a CMake package.

# Cold code in the download, optimised for size in the wasm build: the entry points and their
# validation, the scalar reference paths (dtypes and ranks the fast paths do not take) and the
# dtype conversions around the float32 kernels.
set(GRIDSAMPLE_COLD_SOURCES
  # public entry points with their argument rules, names, SIMD target control
  src/kernels/api/grid_sample.cc
  src/kernels/api/warp_flow.cc
  src/kernels/api/affine_grid.cc
  src/kernels/api/channels_last.cc
  src/kernels/api/warp_affine.cc
  src/kernels/api/remap.cc
  src/kernels/api/fixed_maps.cc
  src/kernels/api/multi_scale_deformable_attention.cc
  src/kernels/api/names.cc
  src/kernels/api/targets.cc
  src/kernels/api/sampler.cc
  src/kernels/api/matrices.cc
  src/kernels/api/warp_tables.cc
  src/kernels/api/reference_calls.cc
  # the checks those rules are made of
  src/kernels/problem/checks.cc
  src/kernels/problem/channels_last_checks.cc
  # the scalar reference (also the tests' oracle)
  src/kernels/reference/grid_sample_ref.cc
  src/kernels/reference/affine_grid_ref.cc
  src/kernels/reference/channels_last_ref.cc
  src/kernels/reference/points.cc
  src/kernels/reference/deformable_attention_ref.cc
  src/kernels/drivers/float_convert.cc)
add_library(gridsample
  ${GRIDSAMPLE_COLD_SOURCES}
  src/kernels/threads/parallel.cc
  src/kernels/threads/wake_choice.cc
  # the SIMD fast paths (Highway): drivers that schedule tiles and dispatch; their sources,
  # planner and blends are the -inl.h headers beside them
  src/kernels/drivers/planes_driver.cc
  src/kernels/drivers/pixels_driver.cc
  src/kernels/drivers/map_plan_driver.cc
  src/kernels/drivers/coordinates_driver.cc
  src/kernels/drivers/attention_driver.cc
  src/kernels/drivers/half_convert.cc
  # gridsample/onnx's fused locations' arithmetic (internal: its binding alone calls it)
  src/kernels/api/location_steps.cc)
  # (the planner and blends on their own, for the tests, are tests/native/probes:
  # gridsample_probes in tests.cmake)
add_library(gridsample::gridsample ALIAS gridsample)
if(EMSCRIPTEN)
  set_source_files_properties(${GRIDSAMPLE_COLD_SOURCES} PROPERTIES COMPILE_OPTIONS "-Os")
endif()
target_include_directories(gridsample
  PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/include>
         $<INSTALL_INTERFACE:include>)
target_compile_features(gridsample PUBLIC cxx_std_17)
# The library's thread pool (src/kernels/threads/parallel.cc); under Emscripten only a -pthread build
# has threads (the pool is compiled out otherwise).
if(NOT EMSCRIPTEN)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads REQUIRED)
  target_link_libraries(gridsample PUBLIC Threads::Threads)
endif()

# Highway: one static target when cross compiling (WASM with -msimd128, EMU128 without;
# NEON on aarch64; Debian's libhwy is host-only), every attainable x86/Arm target with
# runtime dispatch natively (EMU128 included, so the wasm scalar variant's code is also
# tested natively).
if(NOT CMAKE_CROSSCOMPILING)
  find_package(hwy REQUIRED)
endif()
# How a kernel source compiles, in the library and in the tests' probes (tests.cmake): the
# internal headers, Highway's targets and dispatch as above, and the reference's rounding.
# The fast paths keep the reference's rounding, and the reference rounds alike on every
# platform: no contraction of a*b+c into an FMA (g++ contracts by default where FMA is
# baseline, e.g. aarch64).
function(gridsample_kernel_settings target)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels)
  target_compile_options(${target} PRIVATE -ffp-contract=off)
  if(CMAKE_CROSSCOMPILING)
    target_include_directories(${target} SYSTEM PRIVATE ${GRIDSAMPLE_SYSINC})
    target_compile_definitions(${target} PRIVATE HWY_COMPILE_ONLY_STATIC=1
                               GRIDSAMPLE_STATIC_DISPATCH=1)
  else()
    target_link_libraries(${target} PRIVATE hwy::hwy)
    target_compile_definitions(${target} PRIVATE HWY_COMPILE_ALL_ATTAINABLE=1)
    if(GRIDSAMPLE_HWY_DISABLED_TARGETS)
      target_compile_definitions(${target} PRIVATE
                                 "HWY_DISABLED_TARGETS=(${GRIDSAMPLE_HWY_DISABLED_TARGETS})")
    endif()
  endif()
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
gridsample_kernel_settings(gridsample)
if(GRIDSAMPLE_SANITIZE)
  # A sanitized static library needs the runtime wherever it is linked, also after install.
  target_link_options(gridsample INTERFACE -fsanitize=${GRIDSAMPLE_SANITIZE})
endif()

# --- install: headers, library and a CMake package for find_package(gridsample) ---
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS gridsample EXPORT gridsampleTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY src/kernels/include/gridsample DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gridsample)
install(EXPORT gridsampleTargets NAMESPACE gridsample::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gridsample)
configure_package_config_file(cmake/gridsampleConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/gridsampleConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gridsample)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/gridsampleConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/gridsampleConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/gridsampleConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gridsample)
