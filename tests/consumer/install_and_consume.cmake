# CTest script: runs README's "Build and install the C++ library" as written (its shell blocks),
# then checks that the installed library holds no test-only code.
#
# README's example application is this directory's CMakeLists.txt and main.cc, verbatim (checked
# here). The blocks run in a scratch directory that holds the source tree as gridsample/ and the
# application as app/, with HOME there (README installs into $HOME/.local). The library's build
# directory is kept between runs for speed, but its cache is not: each run configures afresh.
cmake_minimum_required(VERSION 3.18)
set(section "## Build and install the C++ library")
set(work ${BUILD_DIR}/consumer-test)

function(fail)
  string(JOIN "" message ${ARGV})
  message(FATAL_ERROR "install_and_consume: ${message}")
endfunction()

# README's section: from its heading to the next one.
file(READ ${SOURCE_DIR}/README.md readme)
string(FIND "${readme}" "\n${section}\n" begin)
if(begin EQUAL -1)
  fail("README.md has no section '${section}'")
endif()
string(SUBSTRING "${readme}" ${begin} -1 readme)
string(LENGTH "\n${section}" skip)
string(SUBSTRING "${readme}" ${skip} -1 rest)
string(FIND "${rest}" "\n## " end)
if(NOT end EQUAL -1)
  math(EXPR end "${end} + ${skip}")
  string(SUBSTRING "${readme}" 0 ${end} readme)
endif()

# The example application, as README shows it.
foreach(pair "cmake;CMakeLists.txt" "cpp;main.cc")
  list(GET pair 0 language)
  list(GET pair 1 name)
  file(READ ${SOURCE_DIR}/tests/consumer/${name} text)
  string(FIND "${readme}" "```${language}\n${text}```\n" at)
  if(at EQUAL -1)
    fail("README's '${section}' does not show tests/consumer/${name} verbatim (a ```${language} block)")
  endif()
endforeach()

# The shell blocks, in order; apt-get lines are the reader's to run.
set(script "")
set(rest "${readme}")
while(TRUE)
  string(FIND "${rest}" "```sh\n" open)
  if(open EQUAL -1)
    break()
  endif()
  math(EXPR open "${open} + 6")
  string(SUBSTRING "${rest}" ${open} -1 rest)
  string(FIND "${rest}" "```" close)
  string(SUBSTRING "${rest}" 0 ${close} block)
  string(SUBSTRING "${rest}" ${close} -1 rest)
  string(REGEX REPLACE "[^\n]*apt-get[^\n]*\n" "" block "${block}")
  string(APPEND script "${block}")
endwhile()
if(NOT script MATCHES "cmake --install")
  fail("README's '${section}' has no shell block that runs cmake --install")
endif()

# The scratch directory: everything but the library's build directory, minus its cache. The
# link to the source tree is unlinked apart, never recursed into.
file(REMOVE ${work}/gridsample)
file(GLOB old LIST_DIRECTORIES TRUE ${work}/*)
list(FILTER old EXCLUDE REGEX "/gridsample-build$")
if(old)
  file(REMOVE_RECURSE ${old})
endif()
file(REMOVE ${work}/gridsample-build/CMakeCache.txt)
file(MAKE_DIRECTORY ${work}/app)
file(CREATE_LINK ${SOURCE_DIR} ${work}/gridsample SYMBOLIC)
file(COPY ${SOURCE_DIR}/tests/consumer/CMakeLists.txt ${SOURCE_DIR}/tests/consumer/main.cc
     DESTINATION ${work}/app)
file(WRITE ${work}/readme.sh "${script}")
message(STATUS "install_and_consume: README's commands, in ${work}:\n${script}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env HOME=${work} bash -euo pipefail ${work}/readme.sh
                WORKING_DIRECTORY ${work} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("README's commands failed (${rc}); they are in ${work}/readme.sh")
endif()

# Test-only code (the probes of the fast paths, tests.cmake) stays out of the installed library.
file(GLOB_RECURSE archive ${work}/.local/*/libgridsample.a)
if(NOT archive)
  fail("no libgridsample.a under ${work}/.local")
endif()
find_program(NM nm REQUIRED)
execute_process(COMMAND ${NM} -C --defined-only ${archive} OUTPUT_VARIABLE symbols
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  fail("nm ${archive} failed (${rc})")
endif()
string(REGEX MATCHALL "[^\n]*(probe|Probe)[^\n]*" probes "${symbols}")
if(probes)
  list(LENGTH probes count)
  list(GET probes 0 first)
  fail("the installed ${archive} holds ${count} test-only probe symbols or objects, e.g. '${first}'")
endif()
