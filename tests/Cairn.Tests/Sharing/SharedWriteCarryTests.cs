using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Reports;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// What one shared write carries: an environment's waiting commits go into the group as one request (its own group
/// commit), each entry still stamped as its own; a write takes every request queued when it starts; the root's IO
/// stats record names the environments it carried, and the HTML page shows them. Native write counts are
/// process-wide, hence the collection.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class SharedWriteCarryTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(1);

    // Room for every entry of a test in journal 1: no switch (whose pre-zeroing is a write too) in the count.
    private const long JournalFileSize = 64 * 1024;

    [Fact]
    public async Task A_members_waiting_entries_go_into_one_shared_write_each_stamped_as_its_own()
    {
        using var dir = new TestDirectory("carry-member");
        using var group = new JournalGroupHarness(dir.Path, branches: 1, maxWritesInFlight: 1, journalFileSize: JournalFileSize);
        JournalGroupHarness.Commit(group.Root, 1); // opens journal 1 before the count starts
        using var held = HeldFirstWrite.Hold(group.Group);
        var rootCommit = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.True(held.Started.Wait(Patience));
        long before = PalFaultInjection.WriteCalls;

        var branch = Task.Run(() => AppendWaiting(group.Branch(0), firstTransaction: 10, count: 3));
        Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == 1, Patience));
        held.Release.Set();
        await rootCommit.WaitAsync(Patience);
        var ends = await branch.WaitAsync(Patience);

        Assert.Equal([1, 1], held.Batches);
        Assert.Equal(2, PalFaultInjection.WriteCalls - before);
        Assert.Equal([new JournalPosition(1, 12288), new JournalPosition(1, 16384), new JournalPosition(1, 20480)], ends);
        string rootFile = group.Root.Journal.JournalPath(1);
        Assert.True(PalFileSystem.SameFile(rootFile, group.Branch(0).Journal.JournalPath(1)));
        for (int i = 0; i < 3; i++)
        {
            var entry = JournalHarness.EntryAt(group.Branch(0).Journal.JournalPath(1), 8192 + i * 4096L);
            Assert.True(entry.IsValid, entry.ToString());
            Assert.Equal((group.Branch(0).Journal.Entries.EnvironmentId, 10L + i, group.RootId, i * 4096L),
                (entry.Header.EnvironmentId, entry.Header.TransactionId, entry.Header.WrittenBy, entry.Header.OffsetInWrite));
        }
        var shared = LastJournalWrite(group.Root.Journal.IoStats);
        Assert.Equal((3, 1, 12288L), (shared.TransactionCount, shared.EnvironmentCount, shared.Bytes));
        var share = LastJournalWrite(group.Branch(0).Journal.IoStats);
        Assert.Equal((10L, 12L, 3), (share.FirstTransactionId, share.LastTransactionId, share.TransactionCount));
    }

    [Fact]
    public async Task A_shared_write_takes_every_request_queued_when_it_starts_and_names_whom_it_carried()
    {
        using var dir = new TestDirectory("carry-all");
        using var group = new JournalGroupHarness(dir.Path, branches: 3, maxWritesInFlight: 1, journalFileSize: JournalFileSize);
        JournalGroupHarness.Commit(group.Root, 1);
        using var held = HeldFirstWrite.Hold(group.Group);
        var rootCommit = Task.Run(() => JournalGroupHarness.Commit(group.Root, 2));
        Assert.True(held.Started.Wait(Patience));
        long before = PalFaultInjection.WriteCalls;

        var branches = new Task<JournalPosition[]>[3];
        for (int b = 0; b < 3; b++)
        {
            int index = b;
            branches[b] = Task.Run(() => AppendWaiting(group.Branch(index), firstTransaction: 20, count: 2));
            Assert.True(SpinWait.SpinUntil(() => group.Group.PendingCount == index + 1, Patience));
        }
        held.Release.Set();
        await rootCommit.WaitAsync(Patience);
        var ends = await Task.WhenAll(branches).WaitAsync(Patience);

        Assert.Equal([1, 3], held.Batches);
        Assert.Equal(2, PalFaultInjection.WriteCalls - before);
        Assert.Equal([12288L, 16384, 20480, 24576, 28672, 32768], ends.SelectMany(e => e).Select(p => p.EndOffset));
        var shared = LastJournalWrite(group.Root.Journal.IoStats);
        Assert.Equal((6, 3), (shared.TransactionCount, shared.EnvironmentCount));
        Assert.Equal(["branch0", "branch1", "branch2"], shared.Environments);
        // The root's own write before it carried the root alone.
        var rootWrites = group.Root.Journal.IoStats.Snapshot().Where(op => op.Kind == IoOperationKind.JournalWrite).ToArray();
        Assert.Equal(["root (root)"], rootWrites[^2].Environments);

        using var page = new MemoryStream();
        group.Root.Journal.IoStats.WriteHtml(page, "root");
        string html = System.Text.Encoding.UTF8.GetString(page.ToArray());
        Assert.Contains(">carried for</th>", html);
        Assert.Contains(">branch0, branch1, branch2</td>", html);
        using var json = new MemoryStream();
        group.Root.Journal.IoStats.WriteJson(json);
        json.Position = 0;
        var readBack = LastJournalWrite(IoStatsJson.ReadJson(json));
        Assert.Equal(["branch0", "branch1", "branch2"], readBack.Environments);
    }

    [Fact]
    public void A_cell_lists_a_few_environments_and_says_how_many_more_carried()
    {
        var operation = new IoOperation
        {
            Sequence = 0, Kind = IoOperationKind.JournalWrite, StartUtc = DateTime.UtcNow, Duration = TimeSpan.FromMicroseconds(300),
            Bytes = 36864, FilePath = "/data/root/Journals/0000000000000000001.journal", FirstTransactionId = 5, LastTransactionId = 5,
            TransactionCount = 9, Failed = false, EnvironmentCount = 9,
            Environments = ["root", "branch1", "branch2", "branch3", "branch4", "branch5", "branch6", "branch7", "branch8"],
        };
        var stats = IoStats.FromOperations(16, 1, 0, [operation]);
        using var page = new MemoryStream();
        stats.WriteHtml(page, "root");
        string html = System.Text.Encoding.UTF8.GetString(page.ToArray());

        Assert.Contains("title=\"root, branch1, branch2, branch3, branch4, branch5, branch6, branch7, branch8\">root, branch1, branch2, branch3 +5 more</td>", html);
        Assert.Empty(new IoOperation
        {
            Sequence = 0, Kind = IoOperationKind.DataSync, StartUtc = DateTime.UtcNow, Duration = TimeSpan.Zero, Bytes = 0, FilePath = "d",
            FirstTransactionId = 1, LastTransactionId = 1, TransactionCount = 0, Failed = false, EnvironmentCount = 1,
        }.Environments);
    }

    private static IoOperation LastJournalWrite(IoStats stats) => stats.Snapshot().Last(op => op.Kind == IoOperationKind.JournalWrite);

    /// <summary>
    /// <paramref name="count"/> consecutive empty entries from <paramref name="firstTransaction"/>, back to back in one
    /// aligned buffer as an environment's commit queue holds them, appended together; returns where each ends.
    /// </summary>
    private static unsafe JournalPosition[] AppendWaiting((JournalHarness Journal, Cairn.Journal.Sharing.JournalGroupMember Member) member,
        long firstTransaction, int count)
    {
        using var buffer = new JournalBuffer();
        var lengths = new long[count];
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            var entry = member.Journal.Entries.Build(firstTransaction + i);
            buffer.EnsureCapacity(total + entry.Length);
            entry.CopyTo(new Span<byte>(buffer.Pointer + total, entry.Length));
            lengths[i] = entry.Length;
            total += entry.Length;
        }
        var ends = new JournalPosition[count];
        member.Member.AppendEntries(buffer.Pointer, lengths, firstTransaction, ends);
        return ends;
    }
}
