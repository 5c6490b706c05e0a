using Cairn.Diagnostics;
using Cairn.Journal;
using Cairn.Journal.Sharing;
using Cairn.Tests.Journal;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A journal group without environments: a root journal and branch journals (each a
/// <see cref="JournalHarness"/> in its own folder under the test's), the group over the root's journal and
/// one member per journal, wired as <c>OpenBranch</c> wires them.
/// </summary>
internal sealed unsafe class JournalGroupHarness : IDisposable
{
    private readonly List<(JournalHarness Journal, JournalGroupMember Member)> _members = [];
    private readonly long _journalFileSize;

    public JournalGroupHarness(string directory, int branches, int maxEntriesPerWrite = 64, long maxBytesPerWrite = 8 << 20, ILogger? logger = null,
        int maxWritesInFlight = 2, bool adaptiveInFlight = false, long journalFileSize = JournalHarness.FileSize, WriteGather? gather = null)
    {
        logger ??= NullLogger.Instance;
        _journalFileSize = journalFileSize;
        Root = Add(Path.Combine(directory, "root"), isRoot: true, logger);
        Group = new JournalGroup(Root.Journal.Journal, Root.Journal.Entries.EnvironmentId, Path.Combine(directory, "root"), maxEntriesPerWrite, maxBytesPerWrite, maxWritesInFlight,
            // The writes' ordering is tested at a fixed number in flight; the policy that learns it has tests of its own.
            // A fixed group gathers only with the gather given (the tests of the gather in a group give one).
            adaptiveInFlight ? null : WritesInFlightPolicy.Fixed(maxWritesInFlight), gather);
        Root.Member.Attach(Group);
        for (int b = 0; b < branches; b++)
        {
            var branch = Add(Path.Combine(directory, $"branch{b}"), isRoot: false, logger);
            Assert.NotNull(Group.TryJoin(directory));
            branch.Member.Attach(Group);
        }
    }

    public JournalGroup Group { get; }

    public (JournalHarness Journal, JournalGroupMember Member) Root { get; }

    public (JournalHarness Journal, JournalGroupMember Member) Branch(int index) => _members[index + 1];

    public Guid RootId => Root.Journal.Entries.EnvironmentId;

    private (JournalHarness Journal, JournalGroupMember Member) Add(string directory, bool isRoot, ILogger logger)
    {
        Directory.CreateDirectory(directory);
        var id = Guid.NewGuid();
        var journal = new JournalHarness(directory, id, logger: logger, fileSize: _journalFileSize);
        var member = new JournalGroupMember(journal.Journal, id, isRoot, journal.IoStats, logger); // as an environment: one ring for both
        _members.Add((journal, member));
        return (journal, member);
    }

    /// <summary>Commits an empty entry (4 KiB) of <paramref name="transactionId"/> through <paramref name="member"/>.</summary>
    public static JournalPosition Commit((JournalHarness Journal, JournalGroupMember Member) member, long transactionId)
    {
        long length = member.Journal.Entries.Build(transactionId).Length;
        return member.Member.Append(member.Journal.Entries.Pointer, length, transactionId);
    }

    public void Dispose()
    {
        foreach (var (journal, member) in _members)
        {
            member.Dispose();
            journal.Dispose();
        }
    }
}
