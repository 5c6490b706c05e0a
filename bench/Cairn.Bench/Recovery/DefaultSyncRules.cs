namespace Cairn.Bench.Recovery;

/// <summary>The rules that make the flusher's cycle sync (FlushScheduler.RunCycle), as an outsider can tell them apart.</summary>
internal enum SyncRule
{
    /// <summary>The journal a crash would leave to replay passed <see cref="StorageOptions.MaxRecoveryJournalBytes"/>.</summary>
    RecoveryObjective,
    /// <summary>Journal files on disk reached twice <see cref="StorageOptions.MaxJournalFileBytes"/>.</summary>
    JournalsPiling,
    /// <summary><see cref="StorageOptions.SyncInterval"/> passed since the last sync.</summary>
    SyncInterval,
    /// <summary>A writer waits for scratch memory (<see cref="StorageOptions.MaxScratchBytes"/> in use).</summary>
    ScratchWait,
    /// <summary>None of the above held where the bench looked.</summary>
    Unknown,
}

/// <summary>What the bench saw when a flusher cycle looked at its rules: the public gauges and its own span.</summary>
/// <param name="SpanBytes">Journal bytes a crash would have left to replay (<see cref="ReplaySpanLedger"/>).</param>
/// <param name="JournalBytesOnDisk"><see cref="StorageEnvironment.JournalBytesOnDisk"/>: the journals' budget counts these.</param>
/// <param name="ScratchBytes"><see cref="StorageEnvironment.ScratchBytesInUse"/>.</param>
/// <param name="SinceLastSync">From the previous sync's end (or the open) to this sync's start.</param>
internal readonly record struct SyncLook(long SpanBytes, long JournalBytesOnDisk, long ScratchBytes, TimeSpan SinceLastSync);

/// <summary>
/// The sync rules of <see cref="StorageOptions"/>' values, in the order the bench names the one that triggered a sync:
/// the objective first (the one this bench is about), then the journals' budget, the interval, a writer's wait. Several
/// may hold at once; the first that holds is named the trigger and the others are listed.
/// </summary>
internal sealed class DefaultSyncRules(StorageOptions options)
{
    private readonly StorageOptions _options = options;

    public IReadOnlyList<SyncRule> Holding(SyncLook look)
    {
        var holding = new List<SyncRule>();
        if (look.SpanBytes > _options.MaxRecoveryJournalBytes)
            holding.Add(SyncRule.RecoveryObjective);
        if (look.JournalBytesOnDisk >= 2 * _options.MaxJournalFileBytes)
            holding.Add(SyncRule.JournalsPiling);
        if (look.SinceLastSync >= _options.SyncInterval)
            holding.Add(SyncRule.SyncInterval);
        if (look.ScratchBytes >= _options.MaxScratchBytes)
            holding.Add(SyncRule.ScratchWait);
        if (holding.Count == 0)
            holding.Add(SyncRule.Unknown);
        return holding;
    }

    public string Describe(SyncRule rule) => rule switch
    {
        SyncRule.RecoveryObjective => $"recovery objective (journal to replay > MaxRecoveryJournalBytes, {Mib(_options.MaxRecoveryJournalBytes)})",
        SyncRule.JournalsPiling => $"journals' budget (journal files on disk >= 2 x MaxJournalFileBytes, {Mib(2 * _options.MaxJournalFileBytes)})",
        SyncRule.SyncInterval => $"sync interval ({_options.SyncInterval.TotalSeconds:N0} s since the last sync)",
        SyncRule.ScratchWait => $"a writer waiting for scratch memory (MaxScratchBytes, {Mib(_options.MaxScratchBytes)})",
        _ => "none seen (a flush request from a waiting writer between two looks?)",
    };

    public static string Mib(long bytes) => $"{bytes / (double)(1 << 20):N1} MiB";
}
