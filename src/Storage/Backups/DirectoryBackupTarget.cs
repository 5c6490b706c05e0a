using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// A backup written as an environment directory: files in a staging folder, synced, renamed into place at the end.
/// Files written in whole pages from page-aligned memory (the data file) go to the device directly; the rest are copied in
/// the kernel where the source is a file and written back in slices (<see cref="SlicedFileWriter"/>).
/// </summary>
internal sealed class DirectoryBackupTarget(StagingDirectory staging) : IBackupTarget
{
    private SlicedFileWriter? _file;
    private long _length;

    public void BeginFile(string relativePath, long length, bool wholePages = false)
    {
        _file = new SlicedFileWriter(staging.FilePath(relativePath), direct: wholePages);
        _length = length;
    }

    public void Write(ReadOnlySpan<byte> data)
    {
        CheckRoomFor(data.Length);
        _file!.Write(data);
    }

    public bool WritesMappedPagesSafely => true;

    public void CopyFrom(PalFile source, long sourceOffset, int length)
    {
        CheckRoomFor(length);
        _file!.CopyFrom(source, sourceOffset, length);
    }

    public void EndFile()
    {
        if (_file!.Length != _length)
            throw new InvalidOperationException($"{_length - _file.Length} bytes of the file were not written");
        _file.Complete();
        _file.Dispose();
        _file = null;
    }

    public void Complete(long transactionId) => staging.Commit();

    private void CheckRoomFor(long bytes)
    {
        if (_file!.Length + bytes > _length)
            throw new InvalidOperationException("more bytes than the file's announced length");
    }
}
