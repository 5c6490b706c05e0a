# win_build, win_run_<test>, win_stop: the native tests built for Windows with mingw-w64 against
# native/win + native/common and run under wine, so the Windows layer runs rather than only compiles
# (win_compile checks the DLL itself). Tests whose subject Windows lacks are left out
# (cross/tests.cmake). win_build is the fixture that builds them and creates the wine prefix under
# the build directory; win_stop stops that prefix's wineserver after the last run. Registered in the
# normal build only: the sanitizers instrument host code, and these executables are not.
if(CAIRN_SANITIZE)
  return()
endif()

cairn_native_tests(${CMAKE_CURRENT_LIST_DIR} windows cairn_win_tests)
# Windows-style paths for the tests (wine's drive Z: is the Linux root), and a root of their own:
# wine's process ids are small numbers that could name a host test's directory.
string(REPLACE "/" "\\" cairn_win_test_dir "Z:${CMAKE_SOURCE_DIR}/.scratch/native-tests-win")
string(REPLACE "/" "\\" cairn_win_other_fs_dir "Z:${CAIRN_NATIVE_OTHER_FS_DIR}-win")
set(cairn_win_step ${CMAKE_COMMAND} -DPLATFORM=windows -DCAIRN_SOURCE_DIR=${CMAKE_SOURCE_DIR}
  -DBUILD_DIR=${CMAKE_BINARY_DIR}/cross/win -DWINEPREFIX_DIR=${CMAKE_BINARY_DIR}/cross/wineprefix)

add_test(NAME win_build COMMAND ${cairn_win_step} -DACTION=build "-DGENERATOR=${CMAKE_GENERATOR}"
  -P ${CMAKE_CURRENT_LIST_DIR}/cross/cross_step.cmake)
set_tests_properties(win_build PROPERTIES FIXTURES_SETUP cairn_win TIMEOUT 600)
foreach(name ${cairn_win_tests})
  # test_disk_full fills a 4 MiB tmpfs that the step mounts for it (as root) and unmounts after.
  set(small_fs)
  if(name STREQUAL "test_disk_full")
    set(small_fs -DSMALL_FS_DIR=${CMAKE_BINARY_DIR}/cross/win-small-fs)
  endif()
  add_test(NAME win_run_${name} COMMAND ${cairn_win_step} -DACTION=run -DTEST=${name} ${small_fs}
    -P ${CMAKE_CURRENT_LIST_DIR}/cross/cross_step.cmake)
  set_tests_properties(win_run_${name} PROPERTIES
    FIXTURES_REQUIRED cairn_win
    ENVIRONMENT "CAIRN_TEST_DIR=${cairn_win_test_dir};CAIRN_TEST_OTHER_FS_DIR=${cairn_win_other_fs_dir}"
    TIMEOUT 300)
  if(name STREQUAL "test_disk_full")
    set_tests_properties(win_run_${name} PROPERTIES RESOURCE_LOCK cairn_mounts)
  endif()
endforeach()
add_test(NAME win_stop COMMAND ${cairn_win_step} -DACTION=stop -P ${CMAKE_CURRENT_LIST_DIR}/cross/cross_step.cmake)
set_tests_properties(win_stop PROPERTIES FIXTURES_CLEANUP cairn_win TIMEOUT 60)
