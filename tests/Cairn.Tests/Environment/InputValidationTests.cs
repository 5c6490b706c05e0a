using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// Bad input fails at once, with a typed exception that names what is wrong: options at open, a file
/// where a directory should be, a null or empty tree name.
/// </summary>
public class InputValidationTests
{
    public static TheoryData<string, Func<StorageOptions, StorageOptions>> InvalidOptions() => new()
    {
        { nameof(StorageOptions.MergerMaxQueuedOperations), o => Copy(o, mergerMaxQueued: 0) },
        { nameof(StorageOptions.WriteTransactionTimeout), o => Copy(o, writeTimeout: TimeSpan.FromSeconds(-5)) },
        { nameof(StorageOptions.MaxFlushDelay), o => Copy(o, maxFlushDelay: TimeSpan.FromMilliseconds(-1)) },
        { nameof(StorageOptions.SyncInterval), o => Copy(o, syncInterval: TimeSpan.Zero) },
        { nameof(StorageOptions.FlushThresholdBytes), o => Copy(o, flushThreshold: 0) },
        { nameof(StorageOptions.MaxScratchBytes), o => Copy(o, maxScratch: -1) },
        { nameof(StorageOptions.InitialJournalFileBytes), o => Copy(o, initialJournal: 5000) },
        { nameof(StorageOptions.MaxJournalFileBytes), o => Copy(o, maxJournal: 4096) },
        { nameof(StorageOptions.IoStatsCapacity), o => Copy(o, ioStatsCapacity: 100) },
        { nameof(StorageOptions.MergerQueueTimeout), o => Copy(o, mergerQueueTimeout: TimeSpan.FromSeconds(-2)) },
        { nameof(StorageOptions.MergerMaxBatchDuration), o => Copy(o, mergerBatch: TimeSpan.Zero) },
        { nameof(StorageOptions.MergerReturnGrace), o => Copy(o, mergerGrace: TimeSpan.FromTicks(-1)) },
        { nameof(StorageOptions.LockWaitTimeout), o => Copy(o, lockWait: TimeSpan.FromDays(30)) },
        { nameof(StorageOptions.MaxRecoveryJournalBytes), o => new StorageOptions(o.DirectoryPath) { MaxRecoveryJournalBytes = 0 } },
        { nameof(StorageOptions.MaxRecoveryJournalBytes), o => new StorageOptions(o.DirectoryPath) { MaxRecoveryJournalBytes = -4096 } },
    };

    [Theory]
    [MemberData(nameof(InvalidOptions))]
    public void An_invalid_option_fails_open_naming_the_option(string option, Func<StorageOptions, StorageOptions> spoil)
    {
        using var dir = new TestDirectory("invalid-option");
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => StorageEnvironment.Open(spoil(new StorageOptions(dir.Path))));
        Assert.Equal(option, error.ParamName);
        Assert.Contains($"StorageOptions.{option}", error.Message);
        Assert.False(File.Exists(Path.Combine(dir.Path, StorageEnvironment.DataFileName)), "nothing is created for invalid options");
    }

    [Fact]
    public void Infinite_waits_are_valid_where_a_wait_can_be_infinite()
    {
        using var dir = new TestDirectory("infinite-options");
        var options = new StorageOptions(dir.Path)
        {
            WriteTransactionTimeout = Timeout.InfiniteTimeSpan,
            MergerQueueTimeout = Timeout.InfiniteTimeSpan,
            MaxFlushDelay = TimeSpan.Zero,
            MergerReturnGrace = TimeSpan.Zero,
        };
        using var env = StorageEnvironment.Open(options);
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put("k"u8, "v"u8);
        tx.Commit();
    }

    [Theory]
    [InlineData("Journals")]
    [InlineData("")]
    public void A_file_where_a_directory_belongs_is_a_format_error_naming_it(string name)
    {
        using var dir = new TestDirectory("file-for-directory");
        string path = name.Length == 0 ? Path.Combine(dir.Path, "env") : Path.Combine(dir.Path, "env", name);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, "not a directory");

        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(Path.Combine(dir.Path, "env"))));
        Assert.Equal(path, error.FilePath);
        Assert.Contains("a file stands where", error.Message);
    }

    [Fact]
    public void Null_or_empty_tree_names_throw_at_once()
    {
        using var dir = new TestDirectory("null-tree-name");
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using (var tx = env.BeginWrite())
        {
            Assert.Equal("name", Assert.Throws<ArgumentNullException>(() => tx.CreateTree(null!)).ParamName);
            Assert.Throws<ArgumentNullException>(() => tx.OpenTree((string)null!));
            Assert.Throws<ArgumentNullException>(() => tx.TryOpenTree((string)null!, out _));
            Assert.Throws<ArgumentNullException>(() => tx.DeleteTree(null!));
            Assert.Throws<ArgumentException>(() => tx.CreateTree(""));
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }
        using (var tx = env.BeginRead())
        {
            // The first lookup of a read transaction used to hand back a handle to nothing for a null name.
            Assert.Throws<ArgumentNullException>(() => tx.OpenTree((string)null!));
            Assert.Throws<ArgumentNullException>(() => tx.TryOpenTree((string)null!, out _));
            Assert.Throws<ArgumentNullException>(() => tx.OpenTree((TreeHandle)null!));
            Assert.Equal("v"u8.ToArray(), tx.OpenTree("t").Get("k"u8));
        }
    }

    private static StorageOptions Copy(StorageOptions o, int? mergerMaxQueued = null, TimeSpan? writeTimeout = null, TimeSpan? maxFlushDelay = null,
        TimeSpan? syncInterval = null, long? flushThreshold = null, long? maxScratch = null, long? initialJournal = null, long? maxJournal = null,
        int? ioStatsCapacity = null, TimeSpan? mergerQueueTimeout = null, TimeSpan? mergerBatch = null, TimeSpan? mergerGrace = null,
        TimeSpan? lockWait = null) => new(o.DirectoryPath)
    {
        MergerMaxQueuedOperations = mergerMaxQueued ?? o.MergerMaxQueuedOperations,
        WriteTransactionTimeout = writeTimeout ?? o.WriteTransactionTimeout,
        MaxFlushDelay = maxFlushDelay ?? o.MaxFlushDelay,
        SyncInterval = syncInterval ?? o.SyncInterval,
        FlushThresholdBytes = flushThreshold ?? o.FlushThresholdBytes,
        MaxScratchBytes = maxScratch ?? o.MaxScratchBytes,
        InitialJournalFileBytes = initialJournal ?? o.InitialJournalFileBytes,
        MaxJournalFileBytes = maxJournal ?? o.MaxJournalFileBytes,
        IoStatsCapacity = ioStatsCapacity ?? o.IoStatsCapacity,
        MergerQueueTimeout = mergerQueueTimeout ?? o.MergerQueueTimeout,
        MergerMaxBatchDuration = mergerBatch ?? o.MergerMaxBatchDuration,
        MergerReturnGrace = mergerGrace ?? o.MergerReturnGrace,
        LockWaitTimeout = lockWait ?? o.LockWaitTimeout,
    };
}
