namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>A node exited without the nemesis killing it: its exit code and the last of its output say why.</summary>
public sealed class NodeProcessExitedException(string node, int exitCode, string outputTail)
    : Exception($"Node {node} exited by itself with code {exitCode}.\n{outputTail}")
{
    public string Node { get; } = node;

    public int ExitCode { get; } = exitCode;

    public string OutputTail { get; } = outputTail;
}
