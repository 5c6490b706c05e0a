/* Compile-time checks of the ABI structs' layout. The managed side declares the same structs with
 * explicit layout and asserts the same sizes, so a change on either side fails a build instead of
 * corrupting memory across the boundary. */
#include "cairnpal.h"

#include <stddef.h>

_Static_assert(sizeof(cairn_buffer) == 16, "cairn_buffer must be 16 bytes");
_Static_assert(offsetof(cairn_buffer, data) == 0, "cairn_buffer.data offset");
_Static_assert(offsetof(cairn_buffer, length) == 8, "cairn_buffer.length offset");

_Static_assert(sizeof(cairn_write_op) == 24, "cairn_write_op must be 24 bytes");
_Static_assert(offsetof(cairn_write_op, data) == 0, "cairn_write_op.data offset");
_Static_assert(offsetof(cairn_write_op, offset) == 8, "cairn_write_op.offset offset");
_Static_assert(offsetof(cairn_write_op, length) == 16, "cairn_write_op.length offset");

_Static_assert(sizeof(cairn_fs_info) == 48, "cairn_fs_info must be 48 bytes");
_Static_assert(offsetof(cairn_fs_info, free_bytes) == 0, "cairn_fs_info.free_bytes offset");
_Static_assert(offsetof(cairn_fs_info, total_bytes) == 8, "cairn_fs_info.total_bytes offset");
_Static_assert(offsetof(cairn_fs_info, fs_type) == 16, "cairn_fs_info.fs_type offset");
_Static_assert(offsetof(cairn_fs_info, block_size) == 24, "cairn_fs_info.block_size offset");
_Static_assert(offsetof(cairn_fs_info, supports_direct_io) == 28, "cairn_fs_info.supports_direct_io offset");
_Static_assert(offsetof(cairn_fs_info, is_volatile) == 32, "cairn_fs_info.is_volatile offset");
_Static_assert(offsetof(cairn_fs_info, reserved) == 36, "cairn_fs_info.reserved offset");
_Static_assert(offsetof(cairn_fs_info, reserved2) == 40, "cairn_fs_info.reserved2 offset");

_Static_assert(sizeof(cairn_io_options) == 16, "cairn_io_options must be 16 bytes");
_Static_assert(offsetof(cairn_io_options, flags) == 0, "cairn_io_options.flags offset");
_Static_assert(offsetof(cairn_io_options, ring_entries) == 4, "cairn_io_options.ring_entries offset");
_Static_assert(offsetof(cairn_io_options, reserved) == 8, "cairn_io_options.reserved offset");
