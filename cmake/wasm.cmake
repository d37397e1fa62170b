# The npm package's wasm module (Emscripten): one .wasm with ESM glue for web/worker and CJS glue for Node.

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
add_executable(gridsample_wasm_web src/bindings/bindings.cc
  src/bindings/deformable_attention_bindings.cc src/bindings/prepared_bindings.cc)
set_target_properties(gridsample_wasm_web PROPERTIES
  OUTPUT_NAME gridsample-${GRIDSAMPLE_WASM_VARIANT} SUFFIX .mjs)
target_link_options(gridsample_wasm_web PRIVATE ${GRIDSAMPLE_WASM_LINK}
  -sEXPORT_ES6=1 -sENVIRONMENT=web,worker)
add_executable(gridsample_wasm_node src/bindings/bindings.cc
  src/bindings/deformable_attention_bindings.cc src/bindings/prepared_bindings.cc)
set_target_properties(gridsample_wasm_node PROPERTIES
  OUTPUT_NAME gridsample-${GRIDSAMPLE_WASM_VARIANT}-node SUFFIX .cjs)
target_link_options(gridsample_wasm_node PRIVATE ${GRIDSAMPLE_WASM_LINK} -sENVIRONMENT=node)
foreach(t gridsample_wasm_web gridsample_wasm_node)
  target_link_libraries(${t} PRIVATE gridsample)
  # threads/parallel.h's kMaxThreads, the one home of the thread cap
  target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels)
endforeach()
