# One step of the cross-built native tests, run by ctest in script mode (cmake -P) from the tests that
# win_run.cmake and arm64_run.cmake register:
#   ACTION=build: configure this project for PLATFORM (windows: mingw-w64; arm64: aarch64-linux-gnu
#                 without liburing) in BUILD_DIR and build the test executables and the shared library
#                 (the one the package ships, checked here like the host's); for windows also create
#                 the wine prefix, so that the runs that follow do not race to create it.
#   ACTION=run:   run BUILD_DIR/tests/native/TEST under wine or qemu-aarch64; its exit code decides.
#   ACTION=stop:  (windows) stop the prefix's wineserver, which otherwise lingers after the last run.
# A missing tool fails the step with the command that installs it: a machine without them must never
# pass for one that ran the tests.
cmake_minimum_required(VERSION 3.20)

if(PLATFORM STREQUAL "windows")
  set(compiler x86_64-w64-mingw32-gcc)
  set(toolchain ${CMAKE_CURRENT_LIST_DIR}/mingw-w64-x86_64.cmake)
  set(runner wine)
  set(install_hint "apt-get install gcc-mingw-w64-x86-64 wine wine64")
  set(suffix .exe)
  set(cache_args)
  # Wine: a prefix of our own under the build directory (not $HOME), no debug chatter, and no offer
  # to install Mono or Gecko, which the tests do not use.
  set(ENV{WINEPREFIX} ${WINEPREFIX_DIR})
  set(ENV{WINEDEBUG} -all)
  set(ENV{WINEDLLOVERRIDES} "mscoree,mshtml=")
elseif(PLATFORM STREQUAL "arm64")
  set(compiler aarch64-linux-gnu-gcc)
  set(toolchain ${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu.cmake)
  set(runner qemu-aarch64)
  set(install_hint "apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user")
  set(suffix "")
  set(cache_args -DCAIRN_WITH_URING=OFF)
else()
  message(FATAL_ERROR "PLATFORM must be windows or arm64, not '${PLATFORM}'")
endif()

find_program(RUNNER ${runner})
if(NOT RUNNER)
  message(FATAL_ERROR "${runner} not found; install it: ${install_hint}")
endif()

if(ACTION STREQUAL "build")
  find_program(COMPILER ${compiler})
  if(NOT COMPILER)
    message(FATAL_ERROR "${compiler} not found; install it: ${install_hint}")
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${CAIRN_SOURCE_DIR} -B ${BUILD_DIR} -G ${GENERATOR}
      -DCMAKE_TOOLCHAIN_FILE=${toolchain} -DCMAKE_BUILD_TYPE=Release ${cache_args}
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "configuring the ${PLATFORM} build in ${BUILD_DIR} failed:\n${output}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} -j 2
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the ${PLATFORM} build failed:\n${output}")
  endif()
  if(PLATFORM STREQUAL "windows" AND NOT EXISTS ${WINEPREFIX_DIR}/system.reg)
    execute_process(COMMAND ${RUNNER} wineboot --init RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT result EQUAL 0 OR NOT EXISTS ${WINEPREFIX_DIR}/system.reg)
      message(FATAL_ERROR "creating the wine prefix ${WINEPREFIX_DIR} failed (${result}):\n${output}")
    endif()
  endif()
  # The shared library this build made is the one the package ships (runtimes/win-x64/native/cairnpal.dll,
  # runtimes/linux-arm64/native/libcairnpal.so): check what it exports, imports or needs, as for the host's.
  if(PLATFORM STREQUAL "windows")
    find_program(OBJDUMP x86_64-w64-mingw32-objdump)
    if(NOT OBJDUMP)
      message(FATAL_ERROR "x86_64-w64-mingw32-objdump not found; install it: ${install_hint}")
    endif()
    set(DLL ${BUILD_DIR}/cairnpal.dll)
    set(HEADER ${CAIRN_SOURCE_DIR}/native/include/cairnpal.h)
    include(${CMAKE_CURRENT_LIST_DIR}/../scripts/check_dll.cmake)
  else()
    execute_process(COMMAND ${CMAKE_COMMAND} -DLIBRARY=${BUILD_DIR}/libcairnpal.so -DLOADER=ld-linux-aarch64.so.1
        -P ${CMAKE_CURRENT_LIST_DIR}/../scripts/check_needed.cmake
      RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "the arm64 libcairnpal.so needs more than libc:\n${output}")
    endif()
    string(STRIP "${output}" output)
    message(STATUS "${BUILD_DIR}/libcairnpal.so: ${output}")
  endif()
  message(STATUS "${PLATFORM} tests built in ${BUILD_DIR}/tests/native")
elseif(ACTION STREQUAL "run")
  set(program ${BUILD_DIR}/tests/native/${TEST}${suffix})
  if(NOT EXISTS ${program})
    message(FATAL_ERROR "${program} is missing: the ${PLATFORM} build step failed or did not run")
  endif()
  # SMALL_FS_DIR: mount a 4 MiB tmpfs there for the run (root only) and name it to the test in
  # CAIRN_TEST_SMALL_FS_DIR, so that it can fill a real file system. Without root the test reports
  # the part it could not run (and fails if CAIRN_TEST_REQUIRE_MOUNTS is set).
  set(mounted FALSE)
  if(SMALL_FS_DIR)
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(uid STREQUAL "0")
      file(MAKE_DIRECTORY ${SMALL_FS_DIR})
      execute_process(COMMAND umount -l ${SMALL_FS_DIR} OUTPUT_QUIET ERROR_QUIET) # left by a killed run
      execute_process(COMMAND mount -t tmpfs -o size=4m cairn-small-fs ${SMALL_FS_DIR}
        RESULT_VARIABLE mount_result OUTPUT_VARIABLE mount_output ERROR_VARIABLE mount_output)
      if(mount_result EQUAL 0)
        set(mounted TRUE)
        string(REPLACE "/" "\\" windows_path "Z:${SMALL_FS_DIR}")
        set(ENV{CAIRN_TEST_SMALL_FS_DIR} ${windows_path})
      else()
        message(STATUS "could not mount a tmpfs at ${SMALL_FS_DIR}: ${mount_output}")
      endif()
    endif()
  endif()
  execute_process(COMMAND ${RUNNER} ${program} RESULT_VARIABLE result ERROR_VARIABLE run_errors)
  message("${run_errors}")
  # Wine's own client can lose its wineserver before the program starts ("wine client error: recvmsg"): the test
  # never ran, so it runs once more rather than failing on the runner's luck.
  if(NOT result EQUAL 0 AND run_errors MATCHES "wine client error")
    message(STATUS "${TEST}: wine lost its server before the test ran; running it again")
    execute_process(COMMAND ${RUNNER} ${program} RESULT_VARIABLE result)
  endif()
  if(mounted)
    execute_process(COMMAND umount ${SMALL_FS_DIR} RESULT_VARIABLE umount_result)
    if(NOT umount_result EQUAL 0)
      message(FATAL_ERROR "could not unmount ${SMALL_FS_DIR}")
    endif()
    file(REMOVE_RECURSE ${SMALL_FS_DIR})
  endif()
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${TEST} failed under ${runner}: exit code ${result}")
  endif()
elseif(ACTION STREQUAL "stop")
  find_program(WINESERVER wineserver)
  if(WINESERVER)
    execute_process(COMMAND ${WINESERVER} -k RESULT_VARIABLE ignored OUTPUT_QUIET ERROR_QUIET)
  endif()
else()
  message(FATAL_ERROR "ACTION must be build, run or stop, not '${ACTION}'")
endif()
