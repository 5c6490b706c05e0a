using System.Runtime.InteropServices;

namespace Cairn.Pal.Interop;

/// <summary>
/// The C ABI of cairnpal (native/include/cairnpal.h), one declaration per export. Every function
/// returns a <see cref="PalStatus"/> code and the OS error through <c>osError</c>.
/// Callers go through the typed wrappers, which make sure the library is loaded and checked first.
/// </summary>
internal static unsafe partial class NativeMethods
{
    internal const string LibraryName = "cairnpal";

    [LibraryImport(LibraryName)]
    internal static partial int cairn_get_abi_version(out int version, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_error_string(int osErrorIn, byte* buffer, int bufferSize, out int written, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_classify_error(int osErrorIn, out int status, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_file_open(string path, int flags, out SafePalFileHandle file, out int effectiveFlags, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_close(nint file, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_size(SafePalFileHandle file, out long size, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_set_size(SafePalFileHandle file, long size, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_allocate(SafePalFileHandle file, long offset, long length, out int allocated, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_zero(SafePalFileHandle file, long offset, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_punch_hole(SafePalFileHandle file, long offset, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_sync(SafePalFileHandle file, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_prefetch(SafePalFileHandle file, long offset, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_lock(SafePalFileHandle file, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_read(SafePalFileHandle file, void* buffer, long length, long offset, out long bytesRead, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_write(SafePalFileHandle file, PalBuffer* buffers, int count, long offset, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_copy_range(SafePalFileHandle source, long sourceOffset, SafePalFileHandle destination, long destinationOffset,
        long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_sync_range(SafePalFileHandle file, long offset, long length, int flags, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_thread_io_priority_low(out int previous, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_thread_io_priority_restore(int previous, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_thread_cpu_priority_lowest(out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_file_map(SafePalFileHandle file, long length, out nint address, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_unmap(nint address, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_map_prefetch(void* address, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_map_populate(void* address, long length, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_memory_allocate(long length, long alignment, out nint address, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_memory_free(nint address, long length, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_journal_open(string path, long size, out SafePalFileHandle file, out int effectiveFlags, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_delete_file(string path, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_sync_directory(string path, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_rename_durable(string from, string to, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_hard_link(string existing, string newLink, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_same_file(string a, string b, out int same, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_link_count(string path, out long count, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_fs_info_get(string directory, out NativeFsInfo info, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_io_configure(in NativeIoOptions options, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_io_backend(out int backend, out int setupError, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_io_shutdown(out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_write_gather(SafePalFileHandle file, PalWriteOp* ops, int count, int mode, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_sync_gather(SafePalFileHandle file, int mode, out int osError);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int cairn_test_set_fault(int kind, long after, long limit, int injectedError, string? pathFilter, out int osError);

    [LibraryImport(LibraryName)]
    internal static partial int cairn_test_write_calls(out long count, out int osError);
}
