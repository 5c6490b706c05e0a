using Cairn.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// <see cref="StorageOptions.JournalCompressionThresholdBytes"/> end to end: compressible commits write smaller
/// journal entries, and a crash leaves entries recovery replays whole; an environment written compressed
/// reopens without the setting.
/// </summary>
public sealed class JournalCompressionTests
{
    private const int Commits = 20;

    [Fact]
    public void Compressed_entries_are_smaller_and_recover_after_a_crash_without_the_setting()
    {
        using var dir = new TestDirectory("journal-lz4");
        long plain = WriteAndCrash(Path.Combine(dir.Path, "plain"), threshold: null);
        long compressed = WriteAndCrash(Path.Combine(dir.Path, "lz4"), threshold: 0);

        Assert.True(compressed * 2 < plain, $"compressed journal writes {compressed:N0} bytes against {plain:N0}");
        foreach (var name in new[] { "plain", "lz4" })
        {
            using var env = StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, name)));
            Assert.Equal(Commits, env.LastCommittedTransactionId);
            using var tx = env.BeginRead();
            var tree = tx.OpenTree("t");
            Assert.Equal(Commits * 200, tree.Count);
            for (int i = 0; i < Commits * 200; i++)
                Assert.Equal(Value(i), tree.Get(Bytes.Key(i)));
            env.Verify();
        }
    }

    [Fact]
    public void A_negative_threshold_is_refused_at_open()
    {
        using var dir = new TestDirectory("journal-lz4-invalid");
        var error = Assert.Throws<ArgumentOutOfRangeException>(() =>
            StorageEnvironment.Open(new StorageOptions(dir.Path) { JournalCompressionThresholdBytes = -1 }));
        Assert.Equal(nameof(StorageOptions.JournalCompressionThresholdBytes), error.ParamName);
    }

    /// <summary>Commits 200 compressible puts at a time, crashes, and returns the journal bytes written.</summary>
    private static long WriteAndCrash(string path, int? threshold)
    {
        var env = StorageEnvironment.Open(new StorageOptions(path)
        {
            JournalCompressionThresholdBytes = threshold,
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
        });
        for (int c = 0; c < Commits; c++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.TryOpenTree("t", out var t) ? t : tx.CreateTree("t");
            for (int i = c * 200; i < (c + 1) * 200; i++)
                tree.Put(Bytes.Key(i), Value(i));
            tx.Commit();
        }
        long written = env.IoStats.Snapshot().Where(o => o.Kind == IoOperationKind.JournalWrite).Sum(o => o.Bytes);
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        return written;
    }

    // The key, then a fixed pattern: compressible, as the key-value suite's values are.
    private static byte[] Value(int i) => [.. Bytes.Key(i), .. Enumerable.Repeat((byte)0x5A, 200)];
}
