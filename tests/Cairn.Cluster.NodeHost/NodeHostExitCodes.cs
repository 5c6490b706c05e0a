namespace Cairn.Cluster.NodeHost;

/// <summary>
/// How a node host ends when its node cannot go on (fail-stop): its supervisor (the nemesis campaign) starts it again
/// on seeing one of these once the cause is cleared. A SIGBUS in DotNext's mmapped log on a full disk is fatal to
/// .NET (an abort, <see cref="Aborted"/>, after an AccessViolationException), which the supervisor tells apart by its output.
/// </summary>
public static class NodeHostExitCodes
{
    /// <summary>The node stopped itself: its state machine failed (<see cref="ClusterNodeFailedException"/>).</summary>
    public const int NodeFailed = ClusterNodeFailedException.ProcessExitCode;

    /// <summary>The node could not start (e.g. its disk is still full): the exception, naming the file, is in its output.</summary>
    public const int StartRefused = 71;

    /// <summary>The exit code of a .NET process that aborted (128 + SIGABRT): a fatal error, among them a SIGBUS in managed code.</summary>
    public const int Aborted = 134;

    /// <summary>Whether <paramref name="exitCode"/> is a fail-stop the supervisor restarts (not a crash the campaign reports).</summary>
    public static bool IsFailStop(int exitCode) => exitCode is NodeFailed or StartRefused;
}
