# arm64_build, arm64_run_<test>: the native tests built for linux-arm64 with Debian's aarch64 cross
# gcc (static, and without liburing: see CAIRN_WITH_URING) and run under qemu-aarch64, so the POSIX
# layer runs on a second architecture (weak memory ordering, another ABI). Tests whose subject that
# build lacks are left out (cross/tests.cmake). Registered in the normal build only, like win_run.
if(CAIRN_SANITIZE)
  return()
endif()

cairn_native_tests(${CMAKE_CURRENT_LIST_DIR} no-uring cairn_arm64_tests)
set(cairn_arm64_step ${CMAKE_COMMAND} -DPLATFORM=arm64 -DCAIRN_SOURCE_DIR=${CMAKE_SOURCE_DIR}
  -DBUILD_DIR=${CMAKE_BINARY_DIR}/cross/arm64)

add_test(NAME arm64_build COMMAND ${cairn_arm64_step} -DACTION=build "-DGENERATOR=${CMAKE_GENERATOR}"
  -P ${CMAKE_CURRENT_LIST_DIR}/cross/cross_step.cmake)
set_tests_properties(arm64_build PROPERTIES FIXTURES_SETUP cairn_arm64 TIMEOUT 600)
foreach(name ${cairn_arm64_tests})
  add_test(NAME arm64_run_${name} COMMAND ${cairn_arm64_step} -DACTION=run -DTEST=${name}
    -P ${CMAKE_CURRENT_LIST_DIR}/cross/cross_step.cmake)
  set_tests_properties(arm64_run_${name} PROPERTIES
    FIXTURES_REQUIRED cairn_arm64
    ENVIRONMENT "CAIRN_TEST_DIR=${CMAKE_SOURCE_DIR}/.scratch/native-tests-arm64;CAIRN_TEST_OTHER_FS_DIR=${CAIRN_NATIVE_OTHER_FS_DIR}-arm64"
    TIMEOUT 300)
  if(name STREQUAL "test_disk_full")
    set_tests_properties(arm64_run_${name} PROPERTIES RESOURCE_LOCK cairn_mounts)
  endif()
endforeach()
