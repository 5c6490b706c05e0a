using System.Runtime.ExceptionServices;
using Cairn.Pal;

namespace Cairn.Backups;

/// <summary>
/// Runs a backup's copy on a thread of its own at the lowest CPU and I/O priority, and waits for it. A copy out of
/// the page cache runs at memory speed and takes a whole core of two: measured, reading the data file alone cost 16
/// writers as much as a backup (docs/benchmarks.md, "Issue 27, backups: what costs the writers"). At the lowest CPU
/// priority the copy runs on what the writers leave. The thread is made for the copy because an unprivileged process
/// cannot raise a lowered CPU priority back (<see cref="PalThreadCpuPriority"/>): the caller's thread, often the
/// pool's, keeps its own.
/// </summary>
internal static class BackgroundCopyThread
{
    /// <summary>
    /// Runs <paramref name="copy"/> on a new thread, at background priority when <paramref name="lowPriority"/>;
    /// returns its result or rethrows what it threw.
    /// </summary>
    public static T Run<T>(Func<T> copy, bool lowPriority = true)
    {
        T result = default!;
        ExceptionDispatchInfo? failure = null;
        var thread = new Thread(() =>
        {
            if (lowPriority)
                PalThreadCpuPriority.LowerForGood();
            using PalThreadIoPriority? lowIo = lowPriority ? PalThreadIoPriority.Lower() : null;
            try
            {
                result = copy();
            }
            catch (Exception e)
            {
                failure = ExceptionDispatchInfo.Capture(e);
            }
        })
        {
            // The caller waits for it below; background only so that a process exiting under a copy is not held by it.
            IsBackground = true,
            Name = "cairn-backup-copy",
        };
        thread.Start();
        thread.Join();
        failure?.Throw();
        return result;
    }
}
