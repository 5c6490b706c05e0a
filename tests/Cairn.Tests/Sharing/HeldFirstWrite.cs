using Cairn.Journal.Sharing;

namespace Cairn.Tests.Sharing;

/// <summary>
/// Holds a journal group's next write in its hook until released, recording how many requests each write of the
/// group carries meanwhile. Disposing lets the held write go, so a failing test never leaves the group's writer
/// waiting.
/// </summary>
internal sealed class HeldFirstWrite : IDisposable
{
    private HeldFirstWrite()
    {
    }

    /// <summary>Set once the held write has reached the hook.</summary>
    public ManualResetEventSlim Started { get; } = new();

    public ManualResetEventSlim Release { get; } = new();

    /// <summary>Requests per write, in order; lock it to read.</summary>
    public List<int> Batches { get; } = [];

    public static HeldFirstWrite Hold(JournalGroup group)
    {
        var held = new HeldFirstWrite();
        group.ForTestingPurposesOnly().WriteStarting = requests =>
        {
            bool first;
            lock (held.Batches)
            {
                held.Batches.Add(requests);
                first = held.Batches.Count == 1;
            }
            if (!first)
                return;
            held.Started.Set();
            held.Release.Wait();
        };
        return held;
    }

    public void Dispose()
    {
        Release.Set();
        Started.Dispose();
    }
}
