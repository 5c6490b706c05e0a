# The shipped library must need nothing at run time but libc (and the loader): liburing is linked
# statically, and libpthread/librt are part of glibc's libc.so.6 on every supported distribution.
# A sanitizer build links libasan/libubsan by design, so the check applies to normal builds only.
if(NOT CAIRN_SANITIZE)
  add_test(NAME shared_library_needs_only_libc
    COMMAND ${CMAKE_COMMAND} -DLIBRARY=$<TARGET_FILE:cairnpal> -P ${CMAKE_CURRENT_LIST_DIR}/scripts/check_needed.cmake)
endif()
