using Cairn.Journal;
using Cairn.Journal.Files;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Journal;

/// <summary>
/// <see cref="WriteAheadJournal"/> when the disk is full or fails, through the native layer's fault
/// hooks (each fault fires once, filtered to the test's folder): a full disk while opening the next
/// journal or writing an entry fails that append with <see cref="DiskFullException"/> naming the file
/// and leaves the journal able to take the next one; any other write error is
/// <see cref="JournalWriteFatalException"/>; a spare that cannot be prepared is logged and left out.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class WriteAheadJournalFaultTests : IDisposable
{
    private const int ENOSPC = 28;
    private const int EIO = 5;
    private const int SpareNotPreparedEvent = 1204;
    private static readonly Guid s_environment = Guid.NewGuid();

    public void Dispose() => PalFaultInjection.Disarm();

    private static string Filter(string directory) => directory + "/";

    [Theory]
    [InlineData(PalFaultKind.WriteError)] // pre-zeroing the new file
    [InlineData(PalFaultKind.AllocateError)] // reserving its space
    public void A_full_disk_while_opening_the_next_journal_fails_that_append_and_leaves_no_file(PalFaultKind fault)
    {
        using var dir = new TestDirectory("wal-fault-switch");
        using var wal = new JournalHarness(dir.Path, s_environment);
        wal.Append(1, (100, 1));

        PalFaultInjection.Arm(fault, limit: fault == PalFaultKind.AllocateError ? 4096 : 0, osError: ENOSPC, pathFilter: Filter(dir.Path));
        var error = Assert.Throws<DiskFullException>(() => wal.Append(2, (101, 2)));

        Assert.Equal(wal.JournalPath(2), error.FilePath);
        Assert.False(File.Exists(wal.JournalPath(2)));
        // The full journal stays in service (an entry that fits could still go there): nothing is retired yet.
        Assert.Empty(wal.Inventory.Snapshot().Retained);
        Assert.Equal(JournalHarness.FileSize, wal.Journal.RetainedBytes); // the one in service

        // The fault fired once: the next append opens the journal under the sequence number that failed.
        Assert.Equal(new JournalPosition(2, JournalEntryFactory.OnePageEntrySize), wal.Append(2, (101, 2)));
        Assert.Equal([1L, 0, 0, 0], JournalHarness.TransactionsByBlock(wal.JournalPath(1)));
        Assert.Equal([2L, 0, 0, 0], JournalHarness.TransactionsByBlock(wal.JournalPath(2)));
    }

    [Fact]
    public void A_full_disk_at_the_entry_write_wipes_its_first_block_and_the_next_append_takes_its_place()
    {
        using var dir = new TestDirectory("wal-fault-write");
        using var wal = new JournalHarness(dir.Path, s_environment);
        // Journal 1 is recycled into journal 3, so the place the failing entry was to go holds an old entry:
        // transaction 1, which the wipe must leave no trace of.
        wal.FillTwoJournalsRecyclingTheFirst();

        // Renaming the spare writes nothing, and it is full size already: the entry's write is the first.
        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: ENOSPC, pathFilter: Filter(dir.Path));
        var error = Assert.Throws<DiskFullException>(() => wal.Append(9));

        Assert.Equal(wal.JournalPath(3), error.FilePath);
        Assert.Equal([0L, 2, 3, 4], JournalHarness.TransactionsByBlock(wal.JournalPath(3)));
        Assert.Equal(JournalEntryProblem.Empty, JournalHarness.EntryAt(wal.JournalPath(3), 0).Problem);
        Assert.Equal(new JournalPosition(3, JournalEntryFactory.EmptyEntrySize), wal.Append(9));
        Assert.Equal([9L, 2, 3, 4], JournalHarness.TransactionsByBlock(wal.JournalPath(3)));
    }

    [Fact]
    public void A_full_disk_at_a_large_entry_write_cuts_an_unzeroed_journal_back_and_the_next_append_takes_its_place()
    {
        if (!OperatingSystem.IsLinux())
            return; // elsewhere every journal is pre-zeroed
        using var dir = new TestDirectory("wal-fault-unzeroed");
        using var wal = new JournalHarness(dir.Path, s_environment, fileSize: 4L << 20);
        var large = Enumerable.Range(0, 130).Select(i => (100L + i, i)).ToArray(); // an entry just over 1 MiB
        var first = wal.Append(1, large); // into a journal not pre-zeroed
        string path = wal.JournalPath(1);

        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: ENOSPC, pathFilter: Filter(dir.Path));
        var error = Assert.Throws<DiskFullException>(() => wal.Append(2, large));

        // Not wiped with a block of zeros past the file's end (which a full disk refuses): cut back to where the write began.
        Assert.Equal(path, error.FilePath);
        Assert.Equal(first.EndOffset, new FileInfo(path).Length);
        var second = wal.Append(2, large);
        Assert.Equal(new JournalPosition(1, 2 * first.EndOffset), second);
        Assert.Equal(second.EndOffset, new FileInfo(path).Length);
    }

    [Fact]
    public void An_io_error_at_the_entry_write_is_fatal_naming_the_journal_and_offset()
    {
        using var dir = new TestDirectory("wal-fault-eio");
        using var wal = new JournalHarness(dir.Path, s_environment);
        wal.Append(1);

        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: EIO, pathFilter: Filter(dir.Path));
        var error = Assert.Throws<JournalWriteFatalException>(() => wal.Append(2));

        Assert.Equal(wal.JournalPath(1), error.JournalPath);
        Assert.Equal(JournalEntryFactory.EmptyEntrySize, error.Offset);
        var cause = Assert.IsAssignableFrom<PalIOException>(error.InnerException);
        Assert.IsNotType<DiskFullException>(cause);
        Assert.Equal(EIO, cause.OsError);
    }

    [Fact]
    public void A_spare_the_disk_has_no_room_for_is_logged_and_leaves_no_file()
    {
        using var dir = new TestDirectory("wal-fault-spare");
        var log = new CapturingLoggerFactory();
        using var wal = new JournalHarness(dir.Path, s_environment, prepareSpares: true, logger: log.CreateLogger("journal"));

        PalFaultInjection.Arm(PalFaultKind.WriteError, osError: ENOSPC, pathFilter: Filter(dir.Path));
        wal.Spares.PrepareNow();

        var logged = Assert.Single(log.WithEventId(SpareNotPreparedEvent));
        Assert.IsType<DiskFullException>(logged.Exception);
        Assert.Contains(JournalFileName.Recyclable(1), logged.Message);
        Assert.Empty(Directory.GetFiles(dir.Path));
        Assert.Empty(wal.Inventory.Snapshot().Recyclable);
        Assert.False(wal.Spares.Wanted); // not asked for again until the journal in service is half full

        // The switch creates its own file instead.
        Assert.Equal(new JournalPosition(1, JournalEntryFactory.EmptyEntrySize), wal.Append(1));
    }
}
