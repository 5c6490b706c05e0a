using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// One byte of the newer header copy damaged, field by field, after a clean close and after a crash
/// with two syncs behind it: open falls back to the older copy, and because every journal from the
/// older copy's position on is kept until both copies are past it, the older copy plus the journals
/// hold every committed transaction. The environment then verifies, takes more commits and reopens.
/// </summary>
public class HeaderDamageTests
{
    private const int Transactions = 90;
    private const int FirstSync = 30;
    private const int SecondSync = 60;
    private const int HeaderRepairedEvent = 1002;

    public static TheoryData<string> Fields() => new(typeof(FileHeader).GetFields()
        .Where(f => !f.IsStatic && !f.IsLiteral).Select(f => f.Name));

    private static StorageOptions Options(string path, CapturingLoggerFactory? log = null) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        // Several journal files, but never the two maximum-size files' worth that makes the flusher run on its own.
        InitialJournalFileBytes = 64 << 10,
        MaxJournalFileBytes = 1 << 20,
        PrepareSpareJournals = false, // file sizes then depend on the workload alone, not on a background thread's timing
        LoggerFactory = log,
    };

    [Theory]
    [MemberData(nameof(Fields))]
    public void A_damaged_newer_header_copy_after_a_clean_close_loses_nothing(string field)
    {
        using var dir = new TestDirectory("header-damage-clean");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitWithTwoSyncs(env);
        env.Dispose();

        DamageNewerCopy(dir.Path, field);
        AssertEverythingThenCarryOn(dir.Path);
    }

    [Theory]
    [MemberData(nameof(Fields))]
    public void A_damaged_newer_header_copy_after_a_crash_loses_nothing(string field)
    {
        using var dir = new TestDirectory("header-damage-crash");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitWithTwoSyncs(env);
        env.ForTestingPurposesOnly().SimulateProcessCrash();

        var (older, newer) = ReadCopies(dir.Path);
        Assert.Equal(FirstSync, older.LastTransactionId);
        Assert.Equal(SecondSync, newer.LastTransactionId);
        DamageNewerCopy(dir.Path, field);
        AssertEverythingThenCarryOn(dir.Path);
    }

    [Fact]
    public void The_background_sync_keeps_the_journals_the_older_copy_needs_and_a_checkpoint_releases_them()
    {
        using var dir = new TestDirectory("header-damage-retention");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitWithTwoSyncs(env);
        string journals = Path.Combine(dir.Path, "Journals");
        // Transactions after the first sync (the older copy's) are all still in the journals.
        Assert.Equal(Transactions - FirstSync, CountJournalEntriesAfter(journals, FirstSync));

        env.Checkpoint();
        env.ForTestingPurposesOnly().SimulateProcessCrash(); // so the test can read the locked data file
        var (older, newer) = ReadCopies(dir.Path);
        Assert.Equal(Transactions, older.LastTransactionId);
        Assert.Equal(Transactions, newer.LastTransactionId);
        // Only the active journal is left: every other one was released although the background sync alone would have kept them.
        Assert.Single(Directory.GetFiles(journals, "*" + Cairn.Journal.Files.JournalFileName.Extension));
    }

    [Fact]
    public void Open_from_the_older_copy_is_logged_naming_the_damaged_copy()
    {
        using var dir = new TestDirectory("header-damage-log");
        var env = StorageEnvironment.Open(Options(dir.Path));
        CommitWithTwoSyncs(env);
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        long offset = DamageNewerCopy(dir.Path, nameof(FileHeader.LastTransactionId));

        var log = new CapturingLoggerFactory();
        using (StorageEnvironment.Open(Options(dir.Path, log)))
        {
        }
        var record = Assert.Single(log.WithEventId(HeaderRepairedEvent));
        Assert.Contains($"offset {offset - offset % StorageConstants.PageSize}", record.Message);
        Assert.Contains("checksum mismatch", record.Message);
    }

    /// <summary>Transactions 1..90, synced the way the background thread does after 30 and after 60 (the header copies then hold 30 and 60).</summary>
    private static void CommitWithTwoSyncs(StorageEnvironment env)
    {
        for (int i = 1; i <= Transactions; i++)
        {
            Commit(env, i);
            if (i is FirstSync or SecondSync)
                env.ForTestingPurposesOnly().FlushAndSyncAsTheFlusherDoes();
        }
    }

    private static void Commit(StorageEnvironment env, int i)
    {
        using var tx = env.BeginWrite();
        var tree = tx.CreateTree("t");
        tree.Put(Bytes.Key(i), Bytes.Value(i, 1500 + i % 7 * 1000));
        if (i % 5 == 0)
            Assert.True(tree.Delete(Bytes.Key(i - 3)));
        tx.Commit();
    }

    private static bool IsPresent(int i, int last) => i <= last && !(i % 5 == 2 && i + 3 <= last);

    private static void AssertEverythingThenCarryOn(string path)
    {
        using (var env = StorageEnvironment.Open(Options(path)))
        {
            AssertHolds(env, Transactions);
            env.Verify();
            for (int i = Transactions + 1; i <= Transactions + 40; i++)
                Commit(env, i);
            env.Checkpoint();
            env.Verify();
        }
        using (var env = StorageEnvironment.Open(Options(path)))
        {
            AssertHolds(env, Transactions + 40);
            env.Verify();
        }
    }

    private static void AssertHolds(StorageEnvironment env, int last)
    {
        Assert.Equal(last, env.LastCommittedTransactionId);
        using var tx = env.BeginRead();
        var tree = tx.OpenTree("t");
        int expected = 0;
        for (int i = 1; i <= last; i++)
        {
            if (!IsPresent(i, last))
            {
                Assert.False(tree.TryGet(Bytes.Key(i), out _), $"key {i} should have been deleted");
                continue;
            }
            expected++;
            Assert.Equal(Bytes.Value(i, 1500 + i % 7 * 1000), tree.Get(Bytes.Key(i)));
        }
        Assert.Equal(expected, tree.Count);
    }

    /// <summary>Flips one byte of <paramref name="field"/> in the copy with the higher revision; returns the file offset.</summary>
    private static long DamageNewerCopy(string path, string field)
    {
        string dataFile = Path.Combine(path, StorageEnvironment.DataFileName);
        var (older, newer) = ReadCopies(path);
        long copy = newer.Slot * (long)StorageConstants.PageSize;
        int fieldOffset = (int)Marshal.OffsetOf<FileHeader>(field);
        long offset = copy + fieldOffset;
        using var file = File.Open(dataFile, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        int b = file.ReadByte();
        file.Position = offset;
        file.WriteByte((byte)(b ^ 0x10));
        Assert.True(older.Revision < newer.Revision);
        return offset;
    }

    private readonly record struct Copy(int Slot, long Revision, long LastTransactionId);

    private static (Copy Older, Copy Newer) ReadCopies(string path)
    {
        var bytes = File.ReadAllBytes(Path.Combine(path, StorageEnvironment.DataFileName));
        var copies = Enumerable.Range(0, 2).Select(slot =>
        {
            var header = MemoryMarshal.Read<FileHeader>(bytes.AsSpan(slot * StorageConstants.PageSize));
            Assert.Equal(HeaderStore.ComputeChecksum(header), header.Checksum);
            return new Copy(slot, header.Revision, header.LastTransactionId);
        }).OrderBy(c => c.Revision).ToArray();
        return (copies[0], copies[1]);
    }

    /// <summary>Valid entries of transactions above <paramref name="after"/> in the journal files (scanned at every 4 KiB boundary).</summary>
    private static int CountJournalEntriesAfter(string journals, long after)
    {
        var transactions = new HashSet<long>();
        foreach (var path in Directory.GetFiles(journals, "*" + Cairn.Journal.Files.JournalFileName.Extension))
        {
            var bytes = File.ReadAllBytes(path);
            for (int offset = 0; offset + Cairn.Journal.JournalEntryHeader.Size <= bytes.Length; offset += Cairn.Journal.JournalEntryHeader.Alignment)
            {
                var validation = Journal.JournalTestEntries.Validate(bytes[offset..]);
                if (validation.IsValid && validation.Header.TransactionId > after)
                    transactions.Add(validation.Header.TransactionId);
            }
        }
        return transactions.Count;
    }
}
