using System.Diagnostics;

namespace Cairn.Tests.Sharing;

/// <summary>
/// Makes a journal group put several environments' entries into one write, deterministically: one commit's
/// write is held on the group's writer while the others queue behind it, one after another, and then all go.
/// The root must write one group write at a time (<see cref="StorageOptions.JournalGroupMaxInFlightWrites"/> 1).
/// </summary>
internal static class HeldGroupWrite
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(1);

    /// <summary>
    /// Runs <paramref name="leader"/> (a commit of the root or a branch of <paramref name="root"/>) and holds its
    /// group write until each of <paramref name="others"/> (commits of other environments of the group, started
    /// one at a time) has queued, then lets them go: the others' entries go in the next write, in that order.
    /// Returns the number of entries of each write the group made meanwhile.
    /// </summary>
    public static List<int> Together(StorageEnvironment root, Action leader, params Action[] others)
    {
        var group = root.ForTestingPurposesOnly().Group ?? throw new InvalidOperationException("the root has no branches");
        if (group.MaxWritesInFlight != 1)
            throw new InvalidOperationException("hold a write only in a group that writes one at a time (JournalGroupMaxInFlightWrites = 1): otherwise the next commit writes beside it");
        var writes = new List<int>();
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        group.ForTestingPurposesOnly().WriteStarting = entries =>
        {
            bool first;
            lock (writes)
            {
                first = writes.Count == 0;
                writes.Add(entries);
            }
            if (first)
            {
                holding.Set();
                release.Wait();
            }
        };
        try
        {
            var commits = new List<Task> { Task.Run(leader) };
            Assert.True(holding.Wait(Patience), "the leader's write never started");
            foreach (var other in others)
            {
                int queued = group.PendingCount;
                commits.Add(Task.Run(other));
                var waiting = Stopwatch.StartNew();
                while (group.PendingCount == queued)
                {
                    Assert.True(waiting.Elapsed < Patience, "a commit never reached the group");
                    Thread.Sleep(1);
                }
            }
            release.Set();
            Assert.True(Task.WaitAll([.. commits], Patience), "the commits did not complete");
        }
        finally
        {
            group.ForTestingPurposesOnly().WriteStarting = null;
            release.Set();
        }
        lock (writes)
            return [.. writes];
    }
}
