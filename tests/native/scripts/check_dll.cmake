# Checks a Windows build of cairnpal: the DLL exports exactly the functions cairnpal.h declares and
# imports nothing a clean Windows lacks. Used by win_compile (its own DLL) and by win_build (the DLL the
# package ships, built by the mingw-w64 cross build). Script mode; set DLL, OBJDUMP (mingw-w64's
# objdump) and HEADER (cairnpal.h) before include(), or pass them with -D to cmake -P.
if(NOT DLL OR NOT OBJDUMP OR NOT HEADER)
  message(FATAL_ERROR "check_dll.cmake needs DLL, OBJDUMP and HEADER")
endif()
if(NOT EXISTS ${DLL})
  message(FATAL_ERROR "${DLL} does not exist")
endif()

execute_process(COMMAND ${OBJDUMP} -p ${DLL} RESULT_VARIABLE result OUTPUT_VARIABLE dump ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "objdump -p ${DLL} failed:\n${output}")
endif()

# --- Exports: exactly the header's CAIRN_EXPORT functions ---------------------------------------
file(READ ${HEADER} header)
string(REGEX MATCHALL "CAIRN_EXPORT int32_t [A-Za-z_][A-Za-z0-9_]*" declarations "${header}")
list(TRANSFORM declarations REPLACE "^CAIRN_EXPORT int32_t " "")
list(REMOVE_DUPLICATES declarations)
if(NOT declarations)
  message(FATAL_ERROR "no CAIRN_EXPORT functions found in cairnpal.h")
endif()

# The names follow the "[Ordinal/Name Pointer] Table" line, one "[   n] name" per line.
string(FIND "${dump}" "[Ordinal/Name Pointer] Table" table_start)
if(table_start EQUAL -1)
  message(FATAL_ERROR "${DLL} has no export name table")
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
  message(FATAL_ERROR "${DLL} does not export exactly the ABI of cairnpal.h\n"
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
    message(FATAL_ERROR "${DLL} imports ${import}, which a clean Windows does not have")
  endif()
endforeach()

list(LENGTH declarations count)
list(JOIN imports ", " imports)
message(STATUS "${DLL}: exports all ${count} functions of cairnpal.h; imports ${imports}")
