using System.Runtime.InteropServices;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// kill(2) on a whole process group. .NET's Process can only SIGKILL (and only one process or a tree it walks
/// itself); the nemesis needs SIGSTOP and SIGCONT, and a group signal reaches the children a node started too.
/// </summary>
internal static partial class PosixSignals
{
    // Linux numbers (x86-64 and arm64 agree); the nemesis runs on Linux only (it reads /proc).
    public const int Kill = 9;
    public const int Stop = 19;
    public const int Continue = 18;

    private const int NoSuchProcess = 3; // ESRCH

    /// <summary>Sends <paramref name="signal"/> to every process in group <paramref name="group"/>; false if none is left.</summary>
    public static bool SendToGroup(int group, int signal)
    {
        if (group <= 1)
            throw new ArgumentOutOfRangeException(nameof(group), group, "Not a node's own process group.");
        if (kill(-group, signal) == 0)
            return true;
        int errno = Marshal.GetLastPInvokeError();
        if (errno == NoSuchProcess)
            return false;
        throw new IOException($"kill(-{group}, {signal}) failed with errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)})");
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int signal);
}
