# The npm package's wasm modules (Emscripten): the full one and the core one, each one .wasm with ESM glue for web/worker and CJS glue for Node.

set(GRIDSAMPLE_WASM_LINK --bind -sMODULARIZE=1 -sEXPORT_NAME=createGridSampleModule
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sABORTING_MALLOC=0 -sFILESYSTEM=0 -sMALLOC=emmalloc
    -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0
    -sINCOMING_MODULE_JS_API=[wasmBinary,instantiateWasm,locateFile])
if(GRIDSAMPLE_WASM_THREADS)
  # The pthread pool: js/core/load_wasm.mjs passes numThreads (threads beside the caller's:
  # numThreads - 1 workers, at least 1, as a pool of 0 would never finish loading), created and
  # loaded before load() resolves, so that the library's pool starts its workers synchronously.
  list(APPEND GRIDSAMPLE_WASM_LINK
    "-sPTHREAD_POOL_SIZE=Math.max(1,(Module['gridsampleThreads']|0)-1)"
    -sINCOMING_MODULE_JS_API=[wasmBinary,instantiateWasm,locateFile,gridsampleThreads,mainScriptUrlOrBlob])
endif()

# The embind files, one per feature, each with an EMSCRIPTEN_BINDINGS block of its own name. The
# core module (gridsample-core-*: what a page needing only GridSample and AffineGrid loads) links
# the core's, the full module every file. A new feature's bindings go in a file of their own:
# in GRIDSAMPLE_WASM_CORE_BINDINGS where the core module has the feature (both modules get it),
# else in GRIDSAMPLE_WASM_FEATURE_BINDINGS (the full module only). The linker keeps only what a
# registered function reaches, so the core module holds no kernel of another feature as long as
# the core's calls reach none (api/run.h's RunFrom).
set(GRIDSAMPLE_WASM_CORE_BINDINGS
  src/bindings/bindings.cc  # every module's utilities: heap, errors, names, target, threads
  src/bindings/prepared_bindings.cc  # calls by block: prepared, or prepared on the stack
  src/bindings/grid_sample_bindings.cc
  src/bindings/affine_grid_bindings.cc)
set(GRIDSAMPLE_WASM_FEATURE_BINDINGS
  src/bindings/channels_last_bindings.cc  # GridSampleChannelsLast
  src/bindings/affine_warp_bindings.cc
  src/bindings/perspective_warp_bindings.cc
  src/bindings/matrices_bindings.cc  # pixel homographies, OpenCV matrix builders
  src/bindings/warp_tables_bindings.cc  # gridsample/webgpu's warp coordinate tables
  src/bindings/remap_bindings.cc
  src/bindings/flow_bindings.cc  # WarpFlow, NCHW and channels-last
  src/bindings/deformable_attention_bindings.cc
  src/bindings/location_steps_bindings.cc)  # gridsample/onnx's fused locations' arithmetic

# Each embind file is compiled once, as an object library named after it, for every module that
# links it (so a module more costs a link, not a compile).
foreach(file ${GRIDSAMPLE_WASM_CORE_BINDINGS} ${GRIDSAMPLE_WASM_FEATURE_BINDINGS})
  get_filename_component(name ${file} NAME_WE)
  add_library(gridsample_${name} OBJECT ${file})
  target_link_libraries(gridsample_${name} PRIVATE gridsample)
  # threads/parallel.h's kMaxThreads, the one home of the thread cap
  target_include_directories(gridsample_${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels)
endforeach()

# gridsample_wasm_module(TARGET OUTPUT [EXCLUDE_FROM_ALL] FILES...): a module of the embind FILES
# and the library: TARGET_web (OUTPUT.mjs, ESM glue for web and workers, and OUTPUT.wasm) and
# TARGET_node (OUTPUT-node.cjs, CommonJS glue for Node, and OUTPUT-node.wasm, the same bytes);
# with EXCLUDE_FROM_ALL, built only when named.
function(gridsample_wasm_module target output)
  cmake_parse_arguments(PARSE_ARGV 2 MODULE "EXCLUDE_FROM_ALL" "" "")
  set(objects)
  foreach(file ${MODULE_UNPARSED_ARGUMENTS})
    get_filename_component(name ${file} NAME_WE)
    list(APPEND objects $<TARGET_OBJECTS:gridsample_${name}>)
  endforeach()
  add_executable(${target}_web ${objects})
  set_target_properties(${target}_web PROPERTIES OUTPUT_NAME ${output} SUFFIX .mjs)
  target_link_options(${target}_web PRIVATE ${GRIDSAMPLE_WASM_LINK}
    -sEXPORT_ES6=1 -sENVIRONMENT=web,worker)
  add_executable(${target}_node ${objects})
  set_target_properties(${target}_node PROPERTIES OUTPUT_NAME ${output}-node SUFFIX .cjs)
  target_link_options(${target}_node PRIVATE ${GRIDSAMPLE_WASM_LINK} -sENVIRONMENT=node)
  foreach(t ${target}_web ${target}_node)
    set_target_properties(${t} PROPERTIES LINKER_LANGUAGE CXX
      EXCLUDE_FROM_ALL ${MODULE_EXCLUDE_FROM_ALL})
    target_link_libraries(${t} PRIVATE gridsample)
  endforeach()
endfunction()

gridsample_wasm_module(gridsample_wasm gridsample-${GRIDSAMPLE_WASM_VARIANT}
  ${GRIDSAMPLE_WASM_CORE_BINDINGS} ${GRIDSAMPLE_WASM_FEATURE_BINDINGS})
# make wasm ships the SIMD build's (js/dist/gridsample-core-simd.*); the others serve the size table.
gridsample_wasm_module(gridsample_core_wasm gridsample-core-${GRIDSAMPLE_WASM_VARIANT}
  EXCLUDE_FROM_ALL ${GRIDSAMPLE_WASM_CORE_BINDINGS})

# The modules of the size table (bench/js/wasm_size.mjs; built by it alone): the utilities alone,
# with GridSample or AffineGrid alone, and the core with each other feature file.
set(GRIDSAMPLE_WASM_UTILITIES src/bindings/bindings.cc src/bindings/prepared_bindings.cc)
gridsample_wasm_module(gridsample_size_utilities gridsample-size-utilities EXCLUDE_FROM_ALL
  ${GRIDSAMPLE_WASM_UTILITIES})
gridsample_wasm_module(gridsample_size_grid_sample gridsample-size-grid_sample EXCLUDE_FROM_ALL
  ${GRIDSAMPLE_WASM_UTILITIES} src/bindings/grid_sample_bindings.cc)
gridsample_wasm_module(gridsample_size_affine_grid gridsample-size-affine_grid EXCLUDE_FROM_ALL
  ${GRIDSAMPLE_WASM_UTILITIES} src/bindings/affine_grid_bindings.cc)
foreach(file ${GRIDSAMPLE_WASM_FEATURE_BINDINGS})
  get_filename_component(name ${file} NAME_WE)
  gridsample_wasm_module(gridsample_size_core_${name} gridsample-size-core_${name}
    EXCLUDE_FROM_ALL ${GRIDSAMPLE_WASM_CORE_BINDINGS} ${file})
endforeach()
# And the full module with its functions' names (--profiling-funcs: a name section, the same
# code), whose functions the table sums by name for what no link separates (fixed point, float16).
gridsample_wasm_module(gridsample_size_named gridsample-size-named EXCLUDE_FROM_ALL
  ${GRIDSAMPLE_WASM_CORE_BINDINGS} ${GRIDSAMPLE_WASM_FEATURE_BINDINGS})
target_link_options(gridsample_size_named_web PRIVATE --profiling-funcs)
