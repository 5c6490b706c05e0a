namespace Cairn.Backups;

/// <summary>A backup written as an environment directory: files in a staging folder, synced, renamed into place at the end.</summary>
internal sealed class DirectoryBackupTarget(StagingDirectory staging) : IBackupTarget
{
    private FileStream? _file;
    private long _remaining;

    public void BeginFile(string relativePath, long length)
    {
        _file = new FileStream(staging.FilePath(relativePath), FileMode.CreateNew, FileAccess.Write, FileShare.None, bufferSize: 0);
        _remaining = length;
    }

    public void Write(ReadOnlySpan<byte> data)
    {
        _remaining -= data.Length;
        if (_remaining < 0)
            throw new InvalidOperationException("more bytes than the file's announced length");
        _file!.Write(data);
    }

    public void EndFile()
    {
        if (_remaining != 0)
            throw new InvalidOperationException($"{_remaining} bytes of the file were not written");
        _file!.Flush(flushToDisk: true);
        _file.Dispose();
        _file = null;
    }

    public void Complete(long transactionId) => staging.Commit();
}
