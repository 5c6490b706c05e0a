using Cairn.Journal;
using Cairn.Tests.Journal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A root and eight branches committing at once through their group, each on its own thread (one entry in
/// flight per environment, as their writers have), with entries of two sizes and 16 KiB journals, so writes
/// go out together, fill files and switch mid-stream. Whatever the interleaving, every acknowledged entry is
/// whole where its environment was told, under its environment's own name for the file, and each
/// environment's positions only move forward.
/// </summary>
public sealed class JournalGroupConcurrencyTests
{
    private const int CommitsPerMember = 60;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    public async Task Every_acknowledged_entry_is_whole_where_its_environment_was_told(int writesInFlight)
    {
        using var dir = new TestDirectory($"group-concurrent-{writesInFlight}");
        using var group = new JournalGroupHarness(dir.Path, branches: 8, maxWritesInFlight: writesInFlight);
        var members = new[] { group.Root }.Concat(Enumerable.Range(0, 8).Select(group.Branch)).ToArray();

        var acknowledged = await Task.WhenAll(members.Select((member, index) => Task.Run(() => CommitAll(member, seed: index))))
            .WaitAsync(TimeSpan.FromMinutes(2));

        for (int m = 0; m < members.Length; m++)
        {
            var journal = members[m].Journal;
            var previous = new JournalPosition(0, 0);
            foreach (var (transaction, position, length) in acknowledged[m])
            {
                Assert.True((position.Sequence, position.EndOffset).CompareTo((previous.Sequence, previous.EndOffset)) > 0,
                    $"member {m}: transaction {transaction} at {position} after {previous}");
                previous = position;
                var entry = JournalHarness.EntryAt(journal.JournalPath(position.Sequence), position.EndOffset - length);
                Assert.True(entry.IsValid, $"member {m}, transaction {transaction} at {position}: {entry}");
                Assert.Equal((journal.Entries.EnvironmentId, transaction), (entry.Header.EnvironmentId, entry.Header.TransactionId));
            }
        }
    }

    private static unsafe List<(long Transaction, JournalPosition Position, long Length)> CommitAll(
        (JournalHarness Journal, Cairn.Journal.Sharing.JournalGroupMember Member) member, int seed)
    {
        var random = new Random(seed);
        var acknowledged = new List<(long, JournalPosition, long)>(CommitsPerMember);
        for (long transaction = 1; transaction <= CommitsPerMember; transaction++)
        {
            long length = random.Next(3) == 0
                ? member.Journal.Entries.Build(transaction, (100 + transaction, (int)transaction)).Length
                : member.Journal.Entries.Build(transaction).Length;
            acknowledged.Add((transaction, member.Member.Append(member.Journal.Entries.Pointer, length, transaction), length));
        }
        return acknowledged;
    }
}
