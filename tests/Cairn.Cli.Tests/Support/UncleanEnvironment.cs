using System.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests.Support;

/// <summary>
/// An environment as a killed process leaves it: its files copied while it was open, after some commits and
/// before any flush or sync, so the copy's data file holds none of them and its journal holds them all, the
/// first entry at offset 0 of the first journal (docs/on-disk-format.md, "Journal files").
/// </summary>
public sealed class UncleanEnvironment : IDisposable
{
    private readonly TestDirectory _directory;

    public UncleanEnvironment(string name, int transactions)
    {
        _directory = new TestDirectory(name);
        try
        {
            string original = _directory.File("original");
            Path = _directory.File("crashed");
            var options = new StorageOptions(original) { MaxFlushDelay = TimeSpan.FromHours(1), SyncInterval = TimeSpan.FromHours(1) };
            using var env = StorageEnvironment.Open(options);
            for (int k = 0; k < transactions; k++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(BitConverter.GetBytes(k), new byte[500]);
                tx.Commit();
            }
            Assert.Equal(0, env.LastSyncedTransactionId);
            Copy(original, Path);
        }
        catch
        {
            _directory.Dispose();
            throw;
        }
    }

    public string Path { get; }

    /// <summary>The copy's first journal, which holds every transaction.</summary>
    public string FirstJournal => Directory.GetFiles(System.IO.Path.Combine(Path, "Journals"), "*.journal").Order(StringComparer.Ordinal).First();

    /// <summary>Damages the payload of the first journal's last entry; returns where it starts and its transaction.</summary>
    public (long Offset, long TransactionId) DamageLastEntry() => FileDamage.DamageLastJournalEntry(FirstJournal);

    public void Dispose() => _directory.Dispose();

    // cp rather than File.Copy, which takes a shared lock on the file that the open environment's lock refuses.
    private static void Copy(string from, string to)
    {
        using var cp = Process.Start("cp", ["-a", from, to]) ?? throw new InvalidOperationException("cp did not start");
        Assert.True(cp.WaitForExit(TimeSpan.FromMinutes(1)) && cp.ExitCode == 0, $"cp -a {from} {to} failed");
    }
}
