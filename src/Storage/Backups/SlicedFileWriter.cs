using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// A new file written front to back whose write-back goes out in slices as it is written: each full slice's
/// write-back is started at once, and the slice before it waited for, so at most two slices are ever dirty or in
/// flight. One large sync at the end would put hundreds of MiB in the device's queue at once, and every journal
/// write (O_DSYNC, waited for by a committer) would queue behind it; slices keep that queue short. The final
/// <see cref="Complete"/> is the durability point (fdatasync).
/// </summary>
internal sealed class SlicedFileWriter : IDisposable
{
    /// <summary>Bytes per write-back slice: large enough for sequential writes the device merges, small enough to queue briefly.</summary>
    internal const long SliceBytes = 8L << 20;

    private readonly PalFile _file;
    private long _length;
    private long _sliceStart;

    /// <param name="path">The new file.</param>
    /// <param name="direct">
    /// Every write will be whole pages from page-aligned memory: the file is opened for direct I/O where the file system
    /// allows, so the writes go from the caller's memory to the device with no copy into the page cache and nothing
    /// dirty left to write back (where it refuses, the file is written through the page cache in slices as any other).
    /// </param>
    public SlicedFileWriter(string path, bool direct = false)
        => _file = PalFile.Open(path, direct ? PalOpenFlags.CreateNew | PalOpenFlags.Direct : PalOpenFlags.CreateNew);

    public string FilePath => _file.FilePath;

    public long Length => _length;

    public void Write(ReadOnlySpan<byte> data)
    {
        _file.Write(data, _length);
        Advance(data.Length);
    }

    /// <summary>Appends <paramref name="length"/> bytes of <paramref name="source"/> from <paramref name="sourceOffset"/>, in the kernel.</summary>
    public void CopyFrom(PalFile source, long sourceOffset, long length)
    {
        _file.CopyRangeFrom(source, sourceOffset, _length, length);
        Advance(length);
    }

    /// <summary>Syncs the whole file (what the slices left, and its size): durable when this returns.</summary>
    public void Complete()
    {
        if (!_file.IsDirect && _length > _sliceStart)
            _file.SyncRange(_sliceStart, 0, PalSyncRange.Write);
        _file.Sync();
    }

    public void Dispose() => _file.Dispose();

    private void Advance(long bytes)
    {
        _length += bytes;
        if (_file.IsDirect)
            return; // nothing in the page cache to write back
        while (_length - _sliceStart >= SliceBytes)
        {
            _file.SyncRange(_sliceStart, SliceBytes, PalSyncRange.Write);
            if (_sliceStart >= SliceBytes)
                _file.SyncRange(_sliceStart - SliceBytes, SliceBytes, PalSyncRange.Wait);
            _sliceStart += SliceBytes;
        }
    }
}
