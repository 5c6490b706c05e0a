using System.Net;
using Cairn.Cluster.NodeHost;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// The node host's wait for its end: a node that fails while its standard input stays open must end the wait (the host
/// then exits with the fail-stop code its supervisor restarts). It once awaited <c>Console.In.ReadToEndAsync()</c>,
/// which blocks the caller until input ends: a failed node stayed up with its Raft member stopped, unseen, and a
/// campaign waited on it for its whole ceiling.
/// </summary>
public sealed class HostEndTests
{
    [Fact]
    public async Task A_node_failure_ends_the_wait_while_input_stays_open_and_its_reader_blocks_the_caller()
    {
        using var input = new ConsoleLikeReader();
        var failure = new TaskCompletionSource<ClusterNodeFailedException>(TaskCreationOptions.RunContinuationsAsynchronously);
        // On a thread of its own, so that a wait that blocks its caller (as the old one did) fails this test at the
        // ceiling instead of hanging it.
        var waiting = Task.Run(() => HostEnd.WaitAsync(input, failure.Task));
        await Eventually.HoldsAsync(() => input.Reading, () => "the host never started reading its input");

        var failed = new ClusterNodeFailedException(new IPEndPoint(IPAddress.Loopback, 1), new IOException("the disk is full"));
        failure.SetResult(failed);

        Assert.Same(failed, await waiting.WaitAsync(Eventually.HangDeadline));
        input.End();
    }

    [Fact]
    public async Task The_end_of_input_ends_the_wait_without_a_failure()
    {
        using var input = new ConsoleLikeReader();
        var failure = new TaskCompletionSource<ClusterNodeFailedException>(TaskCreationOptions.RunContinuationsAsynchronously);
        var waiting = Task.Run(() => HostEnd.WaitAsync(input, failure.Task));
        await Eventually.HoldsAsync(() => input.Reading, () => "the host never started reading its input");

        input.End();

        Assert.Null(await waiting.WaitAsync(Eventually.HangDeadline));
    }

    /// <summary>As <c>Console.In</c> is: reads block until input ends, and its async reads run synchronously on the caller's thread.</summary>
    private sealed class ConsoleLikeReader : TextReader
    {
        private readonly ManualResetEventSlim ended = new();
        private volatile bool reading;

        public bool Reading => reading;

        public void End() => ended.Set();

        public override string ReadToEnd()
        {
            reading = true;
            ended.Wait();
            return "";
        }

        public override Task<string> ReadToEndAsync() => Task.FromResult(ReadToEnd());

        public override Task<string> ReadToEndAsync(CancellationToken cancellationToken) => Task.FromResult(ReadToEnd());

        protected override void Dispose(bool disposing)
        {
            // Set, not disposed: the host's reading thread may still be waking from it.
            if (disposing)
                ended.Set();

            base.Dispose(disposing);
        }
    }
}
