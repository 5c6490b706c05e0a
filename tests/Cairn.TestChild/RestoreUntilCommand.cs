namespace Cairn.TestChild;

/// <summary>
/// <c>restore-until BACKUP TARGET BYTES</c>: restores the backup stream file BACKUP into TARGET, but once BYTES of
/// it have been read, prints "paused" and blocks until standard input closes: the crash tests kill the process
/// there, mid-restore. With standard input closed first, the restore completes and prints "restored".
/// </summary>
public static class RestoreUntilCommand
{
    public static int Run(string backup, string target, long pauseAt)
    {
        using var file = File.OpenRead(backup);
        using var stream = new PausingStream(file, pauseAt);
        EnvironmentBackup.Restore(stream, target);
        Console.WriteLine("restored");
        return 0;
    }

    private sealed class PausingStream(Stream inner, long pauseAt) : Stream
    {
        private long _position;
        private bool _paused;

        public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

        public override int Read(Span<byte> buffer)
        {
            if (!_paused && _position + buffer.Length > pauseAt)
            {
                int before = (int)(pauseAt - _position);
                if (before > 0)
                {
                    int read = inner.Read(buffer[..before]);
                    _position += read;
                    return read;
                }
                _paused = true;
                Console.WriteLine("paused");
                Console.Out.Flush();
                Console.In.ReadToEnd();
            }
            int n = inner.Read(buffer);
            _position += n;
            return n;
        }

        public override bool CanRead => true;
        public override bool CanSeek => false;
        public override bool CanWrite => false;
        public override long Length => throw new NotSupportedException();
        public override long Position { get => _position; set => throw new NotSupportedException(); }
        public override void Flush() { }
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
