using System.Diagnostics;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// A shared lock on an environment's data file, for a campaign about to read that environment's files as plain files
/// right after killing the process that had it open. The kernel may keep the killed process's exclusive lock for a
/// while after the process is gone, until it has torn down the process's io_uring (the ring's in-flight requests
/// hold the open file, and the lock belongs to the open file): the engine's own opens wait for it through
/// <see cref="StorageOptions.LockWaitTimeout"/>, and so must a campaign's copy. Held until disposed, so no
/// environment can open the file for writing while the copy runs.
/// </summary>
internal sealed class KilledOwnerLock : IDisposable
{
    private static readonly TimeSpan s_retryInterval = TimeSpan.FromMilliseconds(10);

    private readonly FileStream _held;

    private KilledOwnerLock(FileStream held) => _held = held;

    /// <summary>
    /// Waits up to <paramref name="timeout"/> for nobody to hold <paramref name="dataFile"/> exclusively, then holds
    /// it shared. Throws <see cref="CampaignFailure"/> naming the file if the wait runs out.
    /// </summary>
    public static KilledOwnerLock Acquire(string dataFile, TimeSpan timeout)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                // FileShare.Read is flock(LOCK_SH) on Unix: it waits out an exclusive holder and keeps writers out.
                return new KilledOwnerLock(new FileStream(dataFile, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 1));
            }
            catch (IOException e) when (e is not FileNotFoundException and not DirectoryNotFoundException)
            {
                if (waited.Elapsed >= timeout)
                    throw new CampaignFailure($"'{dataFile}' was still locked {waited.Elapsed.TotalSeconds:F1} s after its process ended: {e.Message}");
                Thread.Sleep(s_retryInterval);
            }
        }
    }

    public void Dispose() => _held.Dispose();
}
