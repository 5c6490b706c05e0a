using System.Runtime.InteropServices;

namespace Cairn.Bench.Durability.Interleaved;

/// <summary>
/// Context switches of the whole process so far (every thread, finished ones included), from <c>getrusage(RUSAGE_SELF)</c>:
/// a committing thread that sleeps and is woken counts one voluntary switch; one preempted counts an involuntary one.
/// /proc/self/status counts only the main thread, and summing /proc/self/task misses threads that ended.
/// </summary>
internal static partial class ContextSwitches
{
    /// <summary>Voluntary plus involuntary switches of the process; -1 where <c>getrusage</c> is not Linux's.</summary>
    public static long Total()
    {
        if (!OperatingSystem.IsLinux())
            return -1;
        Span<long> usage = stackalloc long[18]; // struct rusage on 64-bit Linux: 2 timevals (4 longs), then 14 longs
        unsafe
        {
            fixed (long* pointer = usage)
            {
                if (GetRusage(0 /* RUSAGE_SELF */, pointer) != 0)
                    return -1;
            }
        }
        return usage[16] + usage[17]; // ru_nvcsw, ru_nivcsw
    }

    [LibraryImport("libc.so.6", EntryPoint = "getrusage")]
    private static unsafe partial int GetRusage(int who, long* usage);
}
