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

execute_process(COMMAND ${MINGW_OBJDUMP} -p ${dll} RESULT_VARIABLE result OUTPUT_VARIABLE dump ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "objdump -p ${dll} failed:\n${output}")
endif()

# --- Exports: exactly the header's CAIRN_EXPORT functions ---------------------------------------
file(READ ${CAIRN_SOURCE_DIR}/native/include/cairnpal.h header)
string(REGEX MATCHALL "CAIRN_EXPORT int32_t [A-Za-z_][A-Za-z0-9_]*" declarations "${header}")
list(TRANSFORM declarations REPLACE "^CAIRN_EXPORT int32_t " "")
list(REMOVE_DUPLICATES declarations)
if(NOT declarations)
  message(FATAL_ERROR "no CAIRN_EXPORT functions found in cairnpal.h")
endif()

# The names follow the "[Ordinal/Name Pointer] Table" line, one "[   n] name" per line.
string(FIND "${dump}" "[Ordinal/Name Pointer] Table" table_start)
if(table_start EQUAL -1)
  message(FATAL_ERROR "${dll} has no export name table")
endif()
string(SUBSTRING "${dump}" ${table_start} -1 table)
string(FIND "${table}" "\n\n" table_end)
if(NOT table_end EQUAL -1)
  string(SUBSTRING "${table}" 0 ${table_end} table)
endif()
string(REGEX MATCHALL "\\[ *[0-9]+\\] [A-Za-z_][A-Za-z0-9_@]*" exports "${table}")
list(TRANSFORM exports REPLACE "^\\[ *[0-9]+\\] " "")

set(missing ${declarations})
list(REMOVE_ITEM missing ${exports})
set(unexpected ${exports})
list(REMOVE_ITEM unexpected ${declarations})
if(missing OR unexpected)
  list(JOIN missing " " missing)
  list(JOIN unexpected " " unexpected)
  message(FATAL_ERROR "${dll} does not export exactly the ABI of cairnpal.h\n"
    "  missing: ${missing}\n  not in the header: ${unexpected}")
endif()

# --- Imports: only what every Windows has -------------------------------------------------------
# A dependency on libgcc_s or libwinpthread would make the DLL fail to load wherever MinGW's
# runtime is not installed.
string(REGEX MATCHALL "DLL Name: [^\r\n]+" imports "${dump}")
list(TRANSFORM imports REPLACE "^DLL Name: " "")
foreach(import ${imports})
  string(TOLOWER "${import}" lowered)
  if(NOT lowered MATCHES "^(kernel32|msvcrt|ucrtbase)\\.dll$" AND NOT lowered MATCHES "^api-ms-win-")
    message(FATAL_ERROR "${dll} imports ${import}, which a clean Windows does not have")
  endif()
endforeach()

list(LENGTH declarations count)
list(JOIN imports ", " imports)
message(STATUS "${dll}: exports all ${count} functions of cairnpal.h; imports ${imports}")
