# Freshness check of the generated wgmma wrappers (run by ctest as `cmake -P`, no GPU needed):
# runs the generator GEN (runtime/sched2cu/gen/gen_wgmma.cpp, built by this tree) and fails
# unless its stdout is byte for byte the committed file COMMITTED
# (runtime/sched2cu/wgmma_ops.inc). Nothing else checks that the two agree, so an edit of the
# generator that was never rerun, or a hand edit of the .inc, would otherwise go unnoticed until
# some wgmma shape misbehaved on the GPU. OUT is a scratch file for the generator's output.
foreach(v GEN COMMITTED OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "wgmma_ops_fresh.cmake needs -D${v}=...")
  endif()
endforeach()
if(NOT EXISTS ${COMMITTED})
  message(FATAL_ERROR "${COMMITTED} does not exist")
endif()

execute_process(COMMAND ${GEN} OUTPUT_FILE ${OUT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "generator ${GEN} failed (exit ${rc}):\n${err}")
endif()

# compare_files without --ignore-eol: an exact byte comparison, so line-ending or trailing
# whitespace drift counts as stale too (the header is included verbatim by wgmma.cuh).
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${COMMITTED} ${OUT} RESULT_VARIABLE same)
if(same EQUAL 0)
  message(STATUS "${COMMITTED} is what ${GEN} prints")
  return()
endif()

# Show where they differ when a diff tool is at hand; the verdict never depends on it. Printed
# with NOTICE, which CMake leaves unwrapped (FATAL_ERROR reflows text and would garble a diff).
find_program(DIFF diff)
if(DIFF)
  execute_process(COMMAND ${DIFF} -u ${COMMITTED} ${OUT} OUTPUT_VARIABLE d ERROR_QUIET)
  string(LENGTH "${d}" n)
  if(n GREATER 4000)
    string(SUBSTRING "${d}" 0 4000 d)
    set(d "${d}\n... (diff truncated)")
  endif()
  message(NOTICE "diff -u committed generated:\n${d}")
endif()
message(FATAL_ERROR
  "${COMMITTED} is stale: it differs from the output of its generator "
  "runtime/sched2cu/gen/gen_wgmma.cpp. Do not edit it by hand; regenerate it from the repository "
  "root with\n"
  "  g++ -std=c++20 -O1 runtime/sched2cu/gen/gen_wgmma.cpp -o /tmp/gen_wgmma && "
  "/tmp/gen_wgmma > runtime/sched2cu/wgmma_ops.inc\n"
  "or, with this build tree,\n"
  "  ${GEN} > runtime/sched2cu/wgmma_ops.inc\n"
  "and commit both files together.")
