# Compile check of every kernel (run by ctest as `cmake -P`, and by tools/compile_check.sh): every
# examples/**/generated.cu, examples/**/handwritten.cu, tests/emit/*.generated.cu and the
# harness's generated test cases are compiled with
#   nvcc -gencode=arch=compute_90a,code=sm_90a -Xptxas -v
# and the test fails if nvcc fails or ptxas reports spill stores/loads, a stack frame, or wgmma
# serialization (C7515), or, for an emitted kernel, nvcc prints any warning. Every examples/**/bench_spec.cpp (and the harness cases' specs) is
# compiled too, as the harness compiles a spec (-x cu, runtime/ and src/harness/ included); a spec
# fails only when nvcc fails (its reference kernels are not held to the no-spill rule).
#
#   cmake -DNVCC=nvcc -DSRC=<repo> -DOUT=<dir> [-DCASES=a,b] [-DEXAMPLES=<dir>] -P this file
#
# CASES (comma-separated names relative to EXAMPLES, default <repo>/examples; a directory holding
# nested variants takes them all): only those cases' generated.cu, handwritten.cu and
# bench_spec.cpp, and an error for a name that is not a case directory.
if(NOT DEFINED EXAMPLES OR EXAMPLES STREQUAL "")
  set(EXAMPLES ${SRC}/examples)
endif()
set(specs "")
if(DEFINED CASES AND NOT CASES STREQUAL "")
  string(REPLACE "," ";" names "${CASES}")
  set(gens "")
  foreach(name ${names})
    string(STRIP "${name}" name)
    string(REGEX REPLACE "/+$" "" name "${name}")
    if(name STREQUAL "")
      continue()
    endif()
    if(IS_ABSOLUTE "${name}" OR name MATCHES "(^|/)\\.\\.(/|$)")
      message(FATAL_ERROR "CASES: '${name}' is not a case directory relative to ${EXAMPLES} "
                          "(no absolute paths, no '..')")
    endif()
    if(NOT IS_DIRECTORY ${EXAMPLES}/${name})
      message(FATAL_ERROR "CASES: no case directory ${EXAMPLES}/${name}")
    endif()
    file(GLOB_RECURSE case_gens ${EXAMPLES}/${name}/generated.cu ${EXAMPLES}/${name}/handwritten.cu)
    file(GLOB_RECURSE case_specs ${EXAMPLES}/${name}/bench_spec.cpp)
    if(NOT case_gens AND NOT case_specs)
      message(FATAL_ERROR "CASES: ${name} holds no generated.cu, handwritten.cu or bench_spec.cpp")
    endif()
    list(APPEND gens ${case_gens})
    list(APPEND specs ${case_specs})
  endforeach()
else()
  file(GLOB_RECURSE gens ${EXAMPLES}/generated.cu)
  file(GLOB_RECURSE hws ${EXAMPLES}/handwritten.cu)
  list(APPEND gens ${hws})
  file(GLOB_RECURSE specs ${EXAMPLES}/bench_spec.cpp)
  file(GLOB tests_gens ${SRC}/tests/emit/*.generated.cu)
  list(APPEND gens ${tests_gens})
  # The harness's test kernels, every gpu case but hang and fault (broken on purpose).
  file(GLOB gpu_case_dirs LIST_DIRECTORIES true ${SRC}/tests/harness/gpu_cases/*)
  foreach(d ${gpu_case_dirs})
    get_filename_component(c ${d} NAME)
    if(NOT IS_DIRECTORY ${d} OR c STREQUAL "hang" OR c STREQUAL "fault")
      continue()
    endif()
    foreach(k generated.cu handwritten.cu)
      if(EXISTS ${d}/${k})
        list(APPEND gens ${d}/${k})
      endif()
    endforeach()
    if(EXISTS ${d}/bench_spec.cpp)
      list(APPEND specs ${d}/bench_spec.cpp)
    endif()
  endforeach()
  if(NOT gens)
    message(FATAL_ERROR "no generated.cu found")
  endif()
endif()
list(SORT gens)
list(SORT specs)
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
  # Emitted code compiles without a warning (no declaration nothing reads, stmt.cpp's
  # drop_unused_decls; no copy of a value never written, instances.cpp): any nvcc warning in a
  # generated kernel is a failure.
  get_filename_component(base ${g} NAME)
  if(base MATCHES "generated\\.cu$" AND log MATCHES "warning #[0-9]+")
    message(SEND_ERROR "${rel}: nvcc warns:\n${log}")
    list(APPEND failed ${rel})
  endif()
  string(REGEX MATCHALL "Used [0-9]+ registers" regs "${log}")
  message(STATUS "${rel}: ${frames}; ${regs}")
endforeach()
foreach(g ${specs})
  file(RELATIVE_PATH rel ${SRC} ${g})
  string(REPLACE "/" "_" obj ${rel})
  execute_process(
    COMMAND ${NVCC} -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -fPIC
            -I${SRC}/runtime -I${SRC}/src/harness -x cu -c ${g} -o ${OUT}/${obj}.o
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${rel}: nvcc failed:\n${out}${err}")
    list(APPEND failed ${rel})
    continue()
  endif()
  message(STATUS "${rel}: compiles (bench spec)")
endforeach()
if(failed)
  message(FATAL_ERROR "compile check failed: ${failed}")
endif()
