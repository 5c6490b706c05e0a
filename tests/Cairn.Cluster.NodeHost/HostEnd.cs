namespace Cairn.Cluster.NodeHost;

/// <summary>What ends a node host: its standard input ending (the test host is gone) or its node failing (fail-stop).</summary>
public static class HostEnd
{
    /// <summary>
    /// Waits for the first of the two; returns the node's failure, or null when input ended first. Input is read on a
    /// thread of its own: <c>Console.In</c> is a synchronised reader whose async reads run synchronously on the caller's
    /// thread, so awaiting <c>Console.In.ReadToEndAsync()</c> would block here until input ended, and a failed node
    /// (its Raft member stopped, its listener closed) would stay up unseen by its supervisor.
    /// </summary>
    public static async Task<ClusterNodeFailedException?> WaitAsync(TextReader input, Task<ClusterNodeFailedException> failure)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(failure);
        var inputEnded = Task.Factory.StartNew(
            () => input.ReadToEnd(), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        var first = await Task.WhenAny(inputEnded, failure).ConfigureAwait(false);
        return first == failure ? await failure.ConfigureAwait(false) : null;
    }
}
