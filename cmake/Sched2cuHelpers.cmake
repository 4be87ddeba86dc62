# Small helpers shared by the stage libraries and tests.

# sched2cu_add_gtest(NAME SOURCES... LIBS ... [LABELS ...])
# A CPU unit test built on GoogleTest and registered with ctest.
function(sched2cu_add_gtest name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest_main sched2cu_warnings)
  gtest_discover_tests(${name} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()

# sched2cu_add_gpu_test(NAME SOURCES...)
# A CUDA test for sm_90a. It exits 77 where no Hopper GPU is visible, which ctest reports as
# skipped; it carries the label "gpu" so that `ctest -L gpu` runs exactly these on the H200.
function(sched2cu_add_gpu_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${SCHED2CU_RUNTIME_DIR} ${CMAKE_SOURCE_DIR}/tests/gpu_common)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${SCHED2CU_CUDA_ARCH_FLAGS} -lineinfo>)
  target_link_libraries(${name} PRIVATE CUDA::cudart_static CUDA::cuda_driver ${T_LIBS})
  set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()
