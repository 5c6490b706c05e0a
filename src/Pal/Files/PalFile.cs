using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>
/// A data file or journal opened through cairnpal. Every failure raises a typed
/// <see cref="PalIOException"/> naming this file, the operation and, where one applies, the offset.
/// </summary>
public sealed unsafe class PalFile : IDisposable
{
    private readonly SafePalFileHandle _handle;

    private PalFile(string path, SafePalFileHandle handle, PalOpenFlags effectiveFlags)
    {
        FilePath = path;
        _handle = handle;
        EffectiveFlags = effectiveFlags;
    }

    /// <summary>The path the file was opened with.</summary>
    public string FilePath { get; }

    /// <summary>The flags in force, which may differ from those asked for (see <see cref="PalOpenFlags.DirectFallback"/>).</summary>
    public PalOpenFlags EffectiveFlags { get; }

    /// <summary>True when the file is open for direct (unbuffered) I/O: buffers, offsets and lengths must be 4 KiB aligned.</summary>
    public bool IsDirect => (EffectiveFlags & PalOpenFlags.Direct) != 0;

    /// <summary>True when direct I/O was asked for and the file system refused it, so the file is open buffered instead.</summary>
    public bool DirectIOFellBack => (EffectiveFlags & PalOpenFlags.DirectFallback) != 0;

    internal SafePalFileHandle Handle => _handle;

    /// <summary>
    /// Opens (or, with <see cref="PalOpenFlags.Create"/> or <see cref="PalOpenFlags.CreateNew"/>, creates) a file. A
    /// request for <see cref="PalOpenFlags.Direct"/> that the file system refuses opens the file buffered and sets
    /// <see cref="DirectIOFellBack"/>.
    /// </summary>
    /// <exception cref="PalFileNotFoundException">The file (without a create flag) or its directory does not exist.</exception>
    /// <exception cref="PalIOException">Any other failure, e.g. <see cref="PalStatus.AlreadyExists"/> with <see cref="PalOpenFlags.CreateNew"/>.</exception>
    public static PalFile Open(string path, PalOpenFlags flags)
    {
        PalLibrary.EnsureInitialized();
        bool created = PalIoObservers.IsActive && (flags & (PalOpenFlags.Create | PalOpenFlags.CreateNew)) != 0 && !File.Exists(path);
        int status = NativeMethods.cairn_file_open(path, (int)flags, out var handle, out int effective, out int osError);
        var file = Wrap(status, osError, "opening a file", path, handle, effective);
        if (created)
            PalIoObservers.Record(PalIoEventKind.Create, path);
        return file;
    }

    /// <summary>
    /// Opens a journal with O_DIRECT|O_DSYNC (falling back to O_DSYNC where the file system refuses
    /// O_DIRECT), allocating and pre-zeroing it to <paramref name="size"/> bytes.
    /// </summary>
    public static PalFile OpenJournal(string path, long size)
    {
        PalLibrary.EnsureInitialized();
        long oldSize = PalIoObservers.IsActive ? (File.Exists(path) ? new FileInfo(path).Length : -1) : 0;
        int status = NativeMethods.cairn_journal_open(path, size, out var handle, out int effective, out int osError);
        var file = Wrap(status, osError, "opening a journal", path, handle, effective);
        if (PalIoObservers.IsActive)
            RecordJournalOpen(path, oldSize, size);
        return file;
    }

    /// <summary>What cairn_journal_open did: created the file if new, then wrote zeros up to its size and synced.</summary>
    private static void RecordJournalOpen(string path, long oldSize, long size)
    {
        if (oldSize < 0)
            PalIoObservers.Record(PalIoEventKind.Create, path);
        long start = Math.Max(0, oldSize + CairnDirectAlignment - 1) & ~(long)(CairnDirectAlignment - 1);
        if (size > Math.Max(0, oldSize))
        {
            PalIoObservers.Record(PalIoEventKind.Extend, path, size: size, durable: true);
            if (size > start)
                PalIoObservers.Record(PalIoEventKind.Write, path, offset: start, size: size - start, durable: true);
        }
    }

    private const int CairnDirectAlignment = 4096;

    private static PalFile Wrap(int status, int osError, string operation, string path, SafePalFileHandle handle, int effective)
    {
        if (status != (int)PalStatus.Ok)
        {
            handle.Dispose();
            PalErrors.Throw(status, osError, operation, path);
        }
        return new PalFile(path, handle, (PalOpenFlags)effective);
    }

    /// <summary>The file's size in bytes.</summary>
    public long GetSize()
    {
        Check(NativeMethods.cairn_file_size(_handle, out long size, out int osError), osError, "reading the file size");
        return size;
    }

    /// <summary>Extends (sparsely, with zeros) or truncates the file to <paramref name="size"/> bytes. Not synced.</summary>
    /// <exception cref="DiskFullException">The file system has no room for the new size.</exception>
    public void SetSize(long size)
    {
        Check(NativeMethods.cairn_file_set_size(_handle, size, out int osError), osError, "resizing", size);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Truncate, FilePath, size: size);
    }

    /// <summary>Reserves blocks for the range; returns false where the file system can only extend sparsely.</summary>
    public bool Allocate(long offset, long length)
    {
        Check(NativeMethods.cairn_file_allocate(_handle, offset, length, out int allocated, out int osError), osError, "allocating", offset);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Extend, FilePath, size: offset + length);
        return allocated != 0;
    }

    /// <summary>Writes zeros over the range, then syncs.</summary>
    public void Zero(long offset, long length)
    {
        Check(NativeMethods.cairn_file_zero(_handle, offset, length, out int osError), osError, "zero-filling", offset);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Write, FilePath, offset: offset, size: length, durable: true);
    }

    /// <summary>
    /// Frees the blocks of a range (FALLOC_FL_PUNCH_HOLE, keeping the size): the range then reads as zeros. Throws
    /// <see cref="PalIOException"/> with <see cref="PalStatus.Unsupported"/> where the file system cannot punch holes,
    /// and on Windows for any file that is not sparse (no file of Cairn is).
    /// </summary>
    public void PunchHole(long offset, long length)
    {
        Check(NativeMethods.cairn_file_punch_hole(_handle, offset, length, out int osError), osError, "punching a hole", offset);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Write, FilePath, offset: offset, size: length);
    }

    /// <summary>fdatasync / FlushFileBuffers.</summary>
    public void Sync()
    {
        Check(NativeMethods.cairn_file_sync(_handle, out int osError), osError, "syncing");
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Sync, FilePath);
    }

    /// <summary>
    /// Copies <paramref name="length"/> bytes of <paramref name="source"/> at <paramref name="sourceOffset"/> into this file at
    /// <paramref name="offset"/> without passing them through the process (copy_file_range; a read/write loop where the kernel
    /// cannot, and on Windows). Not synced; neither file may be direct.
    /// </summary>
    /// <exception cref="DiskFullException">No room left in this file's file system; part of the range may have been written.</exception>
    /// <exception cref="PalIOException">With <see cref="PalStatus.EndOfFile"/>: <paramref name="source"/> ends before the range does.</exception>
    public void CopyRangeFrom(PalFile source, long sourceOffset, long offset, long length)
    {
        ArgumentNullException.ThrowIfNull(source);
        int status = NativeMethods.cairn_file_copy_range(source._handle, sourceOffset, _handle, offset, length, out int osError);
        Check(status, osError, $"copying {length} bytes from '{source.FilePath}' at offset {sourceOffset}", offset);
        if (PalIoObservers.IsActive)
            RecordCopiedRange(offset, length);
    }

    /// <summary>The recorder sees a copied range as the write it is, with the bytes that landed.</summary>
    private void RecordCopiedRange(long offset, long length)
    {
        var data = new byte[length];
        if (Read(data, offset) != length)
            throw new InvalidOperationException($"'{FilePath}' is shorter than the range just copied into it");
        PalIoObservers.Record(PalIoEventKind.Write, FilePath, offset: offset, data: data, size: length);
    }

    /// <summary>
    /// Starts write-back of the range's dirty pages (<see cref="PalSyncRange.Write"/>), waits for it
    /// (<see cref="PalSyncRange.Wait"/>), or both (sync_file_range; <paramref name="length"/> 0 = to the end). Paces
    /// write-back so a large copy never leaves hundreds of MiB for one sync; not a durability point (<see cref="Sync"/> is).
    /// On Windows, Write does nothing and Wait flushes the whole file.
    /// </summary>
    public void SyncRange(long offset, long length, PalSyncRange flags)
    {
        Check(NativeMethods.cairn_file_sync_range(_handle, offset, length, (int)flags, out int osError), osError, "syncing a range", offset);
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.SyncRange, FilePath, offset: offset, size: length);
    }

    /// <summary>
    /// Asks the OS to start reading a range into its cache in the background (POSIX_FADV_WILLNEED;
    /// nothing on Windows, whose cache manager reads ahead of sequential handles by itself).
    /// </summary>
    public void Prefetch(long offset, long length) =>
        Check(NativeMethods.cairn_file_prefetch(_handle, offset, length, out int osError), osError, "prefetching", offset);

    /// <summary>Takes an exclusive lock held until the file is closed; throws <see cref="FileLockedException"/> if another holder has it.</summary>
    public void Lock()
        => Check(NativeMethods.cairn_file_lock(_handle, out int osError), osError, "locking");

    /// <summary>Reads at <paramref name="offset"/>; returns fewer bytes than asked only at end of file.</summary>
    public int Read(Span<byte> buffer, long offset)
    {
        fixed (byte* data = buffer)
        {
            int status = NativeMethods.cairn_file_read(_handle, data, buffer.Length, offset, out long read, out int osError);
            if (status != (int)PalStatus.EndOfFile)
                Check(status, osError, "reading", offset);
            return (int)read;
        }
    }

    /// <summary>
    /// Writes <paramref name="data"/> at <paramref name="offset"/>, looping on short writes. On a direct file the
    /// buffer address, offset and length must be multiples of 4 KiB (<see cref="PalStatus.InvalidArgument"/> otherwise).
    /// Durable on return only if the file was opened with <see cref="PalOpenFlags.DataSync"/>.
    /// </summary>
    /// <exception cref="DiskFullException">No room left; part of the data may have been written.</exception>
    /// <exception cref="DeviceIOException">The device failed the write.</exception>
    public void Write(ReadOnlySpan<byte> data, long offset)
    {
        fixed (byte* pointer = data)
        {
            var buffer = new PalBuffer(pointer, data.Length);
            Write(new ReadOnlySpan<PalBuffer>(&buffer, 1), offset);
        }
    }

    /// <summary>Writes the buffers back to back at <paramref name="offset"/> in as few vectored writes as the OS allows.</summary>
    public void Write(ReadOnlySpan<PalBuffer> buffers, long offset)
    {
        fixed (PalBuffer* pointer = buffers)
        {
            int status = NativeMethods.cairn_file_write(_handle, pointer, buffers.Length, offset, out int osError);
            Check(status, osError, "writing", offset);
        }
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Write, FilePath, offset: offset, data: Concatenate(buffers), size: TotalLength(buffers),
                durable: (EffectiveFlags & PalOpenFlags.DataSync) != 0);
    }

    private static long TotalLength(ReadOnlySpan<PalBuffer> buffers)
    {
        long total = 0;
        foreach (var buffer in buffers)
            total += buffer.Length;
        return total;
    }

    private static byte[] Concatenate(ReadOnlySpan<PalBuffer> buffers)
    {
        var bytes = new byte[TotalLength(buffers)];
        long at = 0;
        foreach (var buffer in buffers)
        {
            new ReadOnlySpan<byte>(buffer.Data, checked((int)buffer.Length)).CopyTo(bytes.AsSpan((int)at));
            at += buffer.Length;
        }
        return bytes;
    }

    /// <summary>Maps the first <paramref name="length"/> bytes read-only; the mapping outlives this file.</summary>
    public PalMapping Map(long length)
    {
        Check(NativeMethods.cairn_file_map(_handle, length, out nint address, out int osError), osError, "mapping");
        return new PalMapping(address, length);
    }

    /// <summary>
    /// Writes sorted, non-overlapping ranges through the process-wide data-file writer (io_uring,
    /// merged into vectored writes) and waits for all of them.
    /// </summary>
    public void WriteGather(ReadOnlySpan<PalWriteOp> ops, PalBackend mode = PalBackend.Auto)
    {
        fixed (PalWriteOp* pointer = ops)
        {
            int status = NativeMethods.cairn_write_gather(_handle, pointer, ops.Length, (int)mode, out int osError);
            Check(status, osError, "writing pages", ops.Length > 0 ? ops[0].Offset : null);
        }
        if (PalIoObservers.IsActive)
        {
            bool durable = (EffectiveFlags & PalOpenFlags.DataSync) != 0;
            foreach (ref readonly var op in ops)
                PalIoObservers.Record(PalIoEventKind.Write, FilePath, offset: op.Offset,
                    data: new ReadOnlySpan<byte>(op.Data, checked((int)op.Length)).ToArray(), size: op.Length, durable: durable);
        }
    }

    /// <summary>Data-syncs the file through the data-file writer.</summary>
    public void SyncGather(PalBackend mode = PalBackend.Auto)
    {
        Check(NativeMethods.cairn_sync_gather(_handle, (int)mode, out int osError), osError, "syncing through the writer");
        if (PalIoObservers.IsActive)
            PalIoObservers.Record(PalIoEventKind.Sync, FilePath);
    }

    /// <summary>Closes the file (and releases its lock, if <see cref="Lock"/> took one). Mappings made from it stay valid.</summary>
    public void Dispose() => _handle.Dispose();

    private void Check(int status, int osError, string operation, long? offset = null)
    {
        if (status != (int)PalStatus.Ok)
            PalErrors.Throw(status, osError, operation, FilePath, offset);
    }
}
