using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>
/// The calling thread's CPU priority, lowered for good to the lowest short of idle (Linux nice 19 on that thread
/// alone; Windows THREAD_PRIORITY_LOWEST), so a long copy runs on the CPU time the other threads leave. An
/// unprivileged Linux process may not raise a nice value back, hence no restore: call it only on a thread made
/// for the work, which ends with it.
/// </summary>
public static class PalThreadCpuPriority
{
    /// <summary>
    /// Lowers the calling thread's CPU priority for the rest of its life; false when the system refused (a seccomp
    /// filter, a container without the call): the priority is a courtesy to other threads, never a reason to fail.
    /// </summary>
    public static bool LowerForGood()
    {
        PalLibrary.EnsureInitialized();
        return NativeMethods.cairn_thread_cpu_priority_lowest(out _) == (int)PalStatus.Ok;
    }
}
