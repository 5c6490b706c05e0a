# Which native tests each build has: a test is left out of a build only where its subject does not
# exist there. docs/pal.md ("Running the Windows and arm64 layers") gives each reason.
#
# windows: native/win under wine (win_run_*). The writer there has no io_uring, no worker thread and
#   no backend choice, so the fallback test (io_uring setup failure, FORCE_PWRITEV, fork) and the
#   priority test (the worker thread's ioprio) have nothing to test.
# no-uring: native/posix built without liburing (the linux-arm64 build under qemu-user, which has no
#   io_uring either): the priority test is about the io_uring worker thread alone.
set(CAIRN_TESTS_EXCLUDED_windows test_writer_fallback test_writer_priority)
set(CAIRN_TESTS_EXCLUDED_no-uring test_writer_priority)
set(CAIRN_TESTS_EXCLUDED_linux)

# Sets `result` to the names (test_*) of the tests in `directory` that `platform` has.
function(cairn_native_tests directory platform result)
  file(GLOB sources CONFIGURE_DEPENDS ${directory}/test_*.c)
  set(names)
  foreach(source ${sources})
    get_filename_component(name ${source} NAME_WE)
    if(NOT name IN_LIST CAIRN_TESTS_EXCLUDED_${platform})
      list(APPEND names ${name})
    endif()
  endforeach()
  list(SORT names)
  set(${result} ${names} PARENT_SCOPE)
endfunction()
