using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Tests.Support;

namespace Cairn.Tests.Durability;

/// <summary>
/// An environment left as a killed process leaves it: transactions 1..N committed, nothing synced, so
/// every one of them lives only in the journals. Knows where each entry is, so tests can damage the
/// journals precisely, and checks what a reopened environment holds against what was committed.
/// </summary>
internal sealed unsafe class CrashedEnvironment
{
    public const string TreeName = "t";

    private CrashedEnvironment(string path, StorageOptions options, List<JournalEntryLocation> entries)
    {
        DirectoryPath = path;
        Options = options;
        Entries = entries;
    }

    /// <summary>A valid entry found in a journal: where it is and which transaction it holds.</summary>
    public sealed record JournalEntryLocation(string JournalPath, long Offset, long Size, long TransactionId);

    public string DirectoryPath { get; }

    public StorageOptions Options { get; }

    /// <summary>Every entry in journal order.</summary>
    public List<JournalEntryLocation> Entries { get; }

    public string JournalDirectory => Path.Combine(DirectoryPath, JournalFileName.DirectoryName);

    public string[] JournalFiles => Directory.GetFiles(JournalDirectory, "*" + JournalFileName.Extension).Order(StringComparer.Ordinal).ToArray();

    /// <summary>
    /// Commits <paramref name="transactions"/> transactions (nothing synced: the data file still holds the empty environment), transaction i putting key i (a value of
    /// <paramref name="valueLength"/> bytes) and rewriting key 0 with i, then crashes.
    /// </summary>
    public static CrashedEnvironment Create(string path, int transactions, int valueLength = 9000, long journalSize = 64 << 10)
    {
        var options = new StorageOptions(path)
        {
            MaxFlushDelay = TimeSpan.FromHours(1),
            SyncInterval = TimeSpan.FromHours(1),
            // Small first journal, growing as they fill (several files for a few dozen transactions), and a
            // cap far above what a test writes, so piling journals never make the flusher sync early.
            InitialJournalFileBytes = journalSize,
            MaxJournalFileBytes = 1L << 30,
        };
        var env = StorageEnvironment.Open(options);
        for (int i = 1; i <= transactions; i++)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree(TreeName);
            tree.Put(Bytes.Key(i), Bytes.Value(i, valueLength));
            tree.Put(Bytes.Key(0), Bytes.Key(i));
            tx.Commit();
        }
        Assert.Equal(0, env.LastSyncedTransactionId);
        env.ForTestingPurposesOnly().SimulateProcessCrash();
        var crashed = new CrashedEnvironment(path, options, []);
        crashed.Entries.AddRange(crashed.ScanEntries());
        return crashed;
    }

    /// <summary>The valid entries of every journal, front to back, stopping at each journal's first invalid position.</summary>
    public List<JournalEntryLocation> ScanEntries()
    {
        var entries = new List<JournalEntryLocation>();
        foreach (var journal in JournalFiles)
        {
            var bytes = File.ReadAllBytes(journal);
            long offset = 0;
            fixed (byte* start = bytes)
            {
                while (offset < bytes.Length)
                {
                    var validation = JournalEntryReader.Validate(start + offset, bytes.Length - offset, offset);
                    if (!validation.IsValid)
                        break;
                    entries.Add(new JournalEntryLocation(journal, offset, validation.EntrySize, validation.Header.TransactionId));
                    offset += validation.EntrySize;
                }
            }
        }
        return entries;
    }

    public StorageEnvironment Open(CapturingLoggerFactory? log = null)
        => StorageEnvironment.Open(new StorageOptions(DirectoryPath)
        {
            MaxFlushDelay = Options.MaxFlushDelay,
            SyncInterval = Options.SyncInterval,
            InitialJournalFileBytes = Options.InitialJournalFileBytes,
            MaxJournalFileBytes = Options.MaxJournalFileBytes,
            LoggerFactory = log,
        });

    /// <summary>Asserts the environment holds exactly transactions 1..<paramref name="last"/>.</summary>
    public static void AssertHoldsExactly(StorageEnvironment env, long last, int valueLength = 9000)
    {
        Assert.Equal(last, env.LastCommittedTransactionId);
        using var tx = env.BeginRead();
        if (last == 0)
        {
            Assert.False(tx.TryOpenTree(TreeName, out _));
            return;
        }
        var tree = tx.OpenTree(TreeName);
        Assert.Equal(last + 1, tree.Count);
        Assert.Equal(Bytes.Key(last), tree.Get(Bytes.Key(0)));
        for (long i = 1; i <= last; i++)
            Assert.Equal(Bytes.Value(i, valueLength), tree.Get(Bytes.Key(i)));
        env.Verify();
    }

    /// <summary>A copy of the crashed directory, to damage one way without spoiling it for the next case.</summary>
    public CrashedEnvironment CopyTo(string path)
    {
        Directory.CreateDirectory(Path.Combine(path, JournalFileName.DirectoryName));
        File.Copy(Path.Combine(DirectoryPath, StorageEnvironment.DataFileName), Path.Combine(path, StorageEnvironment.DataFileName));
        foreach (var journal in Directory.GetFiles(JournalDirectory))
            File.Copy(journal, Path.Combine(path, JournalFileName.DirectoryName, Path.GetFileName(journal)));
        var copy = new CrashedEnvironment(path, Options, []);
        copy.Entries.AddRange(Entries.Select(e => e with { JournalPath = Path.Combine(copy.JournalDirectory, Path.GetFileName(e.JournalPath)) }));
        return copy;
    }
}
