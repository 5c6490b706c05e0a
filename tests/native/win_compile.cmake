# win_compile: cross-compiles and links the Windows platform layer (native/win) into a DLL with
# mingw-w64, warnings as errors, and checks that the DLL exports exactly the functions cairnpal.h
# declares and imports nothing a clean Windows lacks. Windows cannot run here, so this is what
# keeps the Windows code honest; without the cross compiler it fails rather than skips, so a
# missing toolchain never passes for a working build.
#
# This one file has two roles: tests/native/CMakeLists.txt include()s it, which registers the
# test, and the test runs it again in script mode (cmake -P), which does the work.

if(NOT CMAKE_SCRIPT_MODE_FILE)
  add_test(NAME win_compile
    COMMAND ${CMAKE_COMMAND}
      -DCAIRN_SOURCE_DIR=${CMAKE_SOURCE_DIR}
      -DCAIRN_OUTPUT_DIR=${CMAKE_BINARY_DIR}/win
      -P ${CMAKE_CURRENT_LIST_FILE})
  set_tests_properties(win_compile PROPERTIES TIMEOUT 300)
  return()
endif()

cmake_minimum_required(VERSION 3.20)

set(install_hint "install the mingw-w64 cross compiler: apt-get install gcc-mingw-w64-x86-64")
find_program(MINGW_GCC x86_64-w64-mingw32-gcc)
find_program(MINGW_OBJDUMP x86_64-w64-mingw32-objdump)
if(NOT MINGW_GCC)
  message(FATAL_ERROR "x86_64-w64-mingw32-gcc not found; ${install_hint}")
endif()
if(NOT MINGW_OBJDUMP)
  message(FATAL_ERROR "x86_64-w64-mingw32-objdump not found; ${install_hint}")
endif()

file(GLOB win_sources ${CAIRN_SOURCE_DIR}/native/common/*.c ${CAIRN_SOURCE_DIR}/native/win/*.c)
list(SORT win_sources)
if(NOT win_sources)
  message(FATAL_ERROR "no sources in ${CAIRN_SOURCE_DIR}/native/win")
endif()

# --- Build -------------------------------------------------------------------------------------
file(MAKE_DIRECTORY ${CAIRN_OUTPUT_DIR})
set(dll ${CAIRN_OUTPUT_DIR}/cairnpal.dll)
file(REMOVE ${dll}) # a failed build must not pass on a stale DLL
set(compile
  ${MINGW_GCC} -std=gnu11 -Wall -Wextra -Werror -O2 -shared
  -I ${CAIRN_SOURCE_DIR}/native/include -I ${CAIRN_SOURCE_DIR}/native/common
  ${win_sources}
  -o ${dll} -lkernel32)
list(JOIN compile " " shown)
message(STATUS "${shown}")
execute_process(COMMAND ${compile} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "The Windows build failed:\n${output}")
endif()

set(DLL ${dll})
set(OBJDUMP ${MINGW_OBJDUMP})
set(HEADER ${CAIRN_SOURCE_DIR}/native/include/cairnpal.h)
include(${CMAKE_CURRENT_LIST_DIR}/scripts/check_dll.cmake)
