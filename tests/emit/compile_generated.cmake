# Compile check of every kernel (run by ctest as `cmake -P`): every examples/**/generated.cu,
# examples/**/handwritten.cu, tests/emit/*.generated.cu and the harness's generated test cases are
# compiled with
#   nvcc -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
# and the test fails if nvcc fails or ptxas reports spill stores/loads, a stack frame, or wgmma
# serialization (C7515).
file(GLOB_RECURSE gens ${SRC}/examples/generated.cu)
file(GLOB_RECURSE hws ${SRC}/examples/handwritten.cu)
list(APPEND gens ${hws})
file(GLOB tests_gens ${SRC}/tests/emit/*.generated.cu)
list(APPEND gens ${tests_gens})
# The harness's generated test kernels (gpu_cases/hang and fault are broken on purpose).
list(APPEND gens ${SRC}/tests/harness/gpu_cases/row_softmax/generated.cu
     ${SRC}/tests/harness/gpu_cases/row_softmax/handwritten.cu
     ${SRC}/tests/harness/gpu_cases/gemm_bt_gelu/generated.cu
     ${SRC}/tests/harness/gpu_cases/batched_gemm/generated.cu)
list(SORT gens)
if(NOT gens)
  message(FATAL_ERROR "no generated.cu found")
endif()
file(MAKE_DIRECTORY ${OUT})
set(failed "")
foreach(g ${gens})
  file(RELATIVE_PATH rel ${SRC} ${g})
  string(REPLACE "/" "_" obj ${rel})
  execute_process(
    COMMAND ${NVCC} -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
            -I${SRC}/runtime -c ${g} -o ${OUT}/${obj}.o
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(log "${out}${err}")
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${rel}: nvcc failed:\n${log}")
    list(APPEND failed ${rel})
    continue()
  endif()
  string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads" frames "${log}")
  if(NOT frames)
    message(SEND_ERROR "${rel}: no ptxas -v report found:\n${log}")
    list(APPEND failed ${rel})
  endif()
  foreach(f ${frames})
    if(NOT f MATCHES "^0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
      message(SEND_ERROR "${rel}: ${f}")
      list(APPEND failed ${rel})
    endif()
  endforeach()
  # ptxas serializing the wgmma pipeline (C7515) is a silent 3% loss on the H200; treat it as a
  # failure like a spill.
  if(log MATCHES "C7515")
    message(SEND_ERROR "${rel}: ptxas serialized wgmma (C7515)")
    list(APPEND failed ${rel})
  endif()
  string(REGEX MATCHALL "Used [0-9]+ registers" regs "${log}")
  message(STATUS "${rel}: ${frames}; ${regs}")
endforeach()
if(failed)
  message(FATAL_ERROR "compile check failed: ${failed}")
endif()
