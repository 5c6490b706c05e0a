using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>A damaged or truncated backup stream is refused, naming the stream and the offset, and no environment appears.</summary>
public class RestoreValidationTests
{
    private static readonly Lazy<byte[]> s_backup = new(MakeBackup);

    private static byte[] MakeBackup()
    {
        using var dir = new TestDirectory("restore-source");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        BackupContent.Fill(env, "a", 0, 3000, 100);
        env.Checkpoint();
        BackupContent.Fill(env, "a", 0, 300, 30, seed: 5); // a journal to carry
        using var stream = new MemoryStream();
        env.Backup(stream);
        return stream.ToArray();
    }

    public static TheoryData<double> Fractions() => [0.0, 0.0001, 0.0003, 0.001, 0.01, 0.25, 0.5, 0.75, 0.99, 0.9995, 0.99999];

    [Theory]
    [MemberData(nameof(Fractions))]
    public void A_damaged_byte_anywhere_is_refused_with_the_stream_and_an_offset(double fraction)
    {
        var bytes = (byte[])s_backup.Value.Clone();
        long damaged = Math.Min(bytes.Length - 1, (long)(bytes.Length * fraction));
        bytes[damaged] ^= 0x40;
        using var dir = new TestDirectory("restore-damaged");
        string target = Path.Combine(dir.Path, "env");
        string file = Path.Combine(dir.Path, "backup.cairnbk");
        File.WriteAllBytes(file, bytes);
        using var stream = File.OpenRead(file);

        var e = Assert.Throws<StorageFormatException>(() => EnvironmentBackup.Restore(stream, target));
        Assert.Equal(file, e.FilePath);
        Assert.InRange(e.Offset, 0, bytes.Length);
        Assert.Contains("damaged backup", e.Message);
        Assert.False(Directory.Exists(target));
        Assert.Equal(["backup.cairnbk"], Directory.GetFileSystemEntries(dir.Path).Select(Path.GetFileName));
    }

    [Theory]
    [MemberData(nameof(Fractions))]
    public void A_truncated_stream_is_refused_at_its_length(double fraction)
    {
        var bytes = s_backup.Value;
        int length = Math.Min(bytes.Length - 1, (int)(bytes.Length * fraction));
        using var dir = new TestDirectory("restore-truncated");
        string target = Path.Combine(dir.Path, "env");
        using var stream = new MemoryStream(bytes, 0, length);

        var e = Assert.Throws<StorageFormatException>(() => EnvironmentBackup.Restore(stream, target));
        Assert.Equal("backup stream", e.FilePath);
        Assert.Equal(length, e.Offset);
        Assert.Contains("truncated", e.Message);
        Assert.False(Directory.Exists(target));
    }

    [Fact]
    public void Bytes_after_the_end_record_are_refused()
    {
        using var dir = new TestDirectory("restore-trailing");
        string target = Path.Combine(dir.Path, "env");
        using var stream = new MemoryStream([.. s_backup.Value, 0]);
        var e = Assert.Throws<StorageFormatException>(() => EnvironmentBackup.Restore(stream, target));
        Assert.Equal(s_backup.Value.Length, e.Offset);
        Assert.False(Directory.Exists(target));
    }

    [Fact]
    public void An_undamaged_stream_restores_into_an_existing_empty_directory()
    {
        using var dir = new TestDirectory("restore-empty-dir");
        using var stream = new MemoryStream(s_backup.Value);
        var result = EnvironmentBackup.Restore(stream, dir.Path);
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        Assert.Equal(result.TransactionId, env.LastCommittedTransactionId);
        env.Verify();
        using var tx = env.BeginRead();
        Assert.Equal(3000, tx.OpenTree("a").Count);
        Assert.True(tx.OpenTree("a").Get(Bytes.Key(1))!.AsSpan().SequenceEqual(Bytes.Value(6, 30)));
    }
}
