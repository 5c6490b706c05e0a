using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.Durability;
using Cairn.Bench.KeyValue;

namespace Cairn.Bench.Recovery;

/// <summary>
/// The writer child of <see cref="WorstMomentKill"/>: <c>--recovery-kill-writer DIR PUTS LEARN_SYNCS</c>. Opens DIR
/// with default options and commits transactions of PUTS random puts without pause. It follows, in bytes, the journal a
/// crash would leave to replay (<see cref="ReplaySpanLedger"/>, the recovery objective's own count) and watches each sync
/// land: it notes the span just before the sync (its peak) and which rule made it due, judged where the flush the sync
/// recorded started (<see cref="DefaultSyncRules"/>).
/// </summary>
/// <remarks>
/// <para>Where the kill goes. Under the defaults two byte rules end a cycle: the recovery objective (span past
/// <see cref="StorageOptions.MaxRecoveryJournalBytes"/>) and the journals' budget (journal files on disk at twice
/// <see cref="StorageOptions.MaxJournalFileBytes"/>). Once the journals have grown to their largest, the budget fires at
/// every move to a new journal while the one holding the older header copy's position is kept, which after the objective's
/// or the interval's sync is always: it syncs twice in a row (the second 0.2-0.5 s after the first, the "sync 3" of the
/// old bench) and then at the end of each journal, at a span of the rest of the journal the sync point is in. So a cycle's
/// most is known when it starts: the least of the objective's bound and the span at the end of the journal in service
/// (when the move would bring the budget to its bound). The kill comes at 97 % of that, in the first cycle after
/// LEARN_SYNCS syncs whose most is at least 90 % of the objective's bound (one that starts near a journal's start, as the
/// budget's second sync leaves it); a cycle the interval ends first is passed over, and so is one starting mid-journal.</para>
/// <para>Never returns normally: it SIGKILLs itself, having printed what it acknowledged.</para>
/// </remarks>
internal static class WorstMomentWriter
{
    public const string KilledLine = "killed-at";
    public const string SyncLine = "writer:";
    private const double KillFraction = 0.97;
    // A cycle whose most is below this fraction of the objective's bound started mid-journal: the kill waits for another.
    private const double WorthyCycle = 0.9;

    private readonly record struct Sample(DateTime Utc, long Last, long JournalBytesOnDisk, long ScratchBytes);

    private sealed record LearnedSync(int Number, double AtSeconds, long Transaction, long PeakBytes, long TriggerBytes, SyncRule Rule, string Rules);

    /// <summary>The most a cycle lets pile up (<see cref="CapBytes"/>) and the rule that will end it there.</summary>
    private readonly record struct CycleCap(long CapBytes, SyncRule Rule)
    {
        public long TargetBytes => (long)(KillFraction * CapBytes);
    }

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        string directory = args[0];
        int puts = int.Parse(args[1], CultureInfo.InvariantCulture), learnSyncs = int.Parse(args[2], CultureInfo.InvariantCulture);
        var options = new StorageOptions(directory);
        var rules = new DefaultSyncRules(options);
        var openedUtc = DateTime.UtcNow;
        var env = StorageEnvironment.Open(options);
        var ledger = new ReplaySpanLedger(env.IoStats);
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree(RecoveryRun.TreeName);
            tx.Commit();
        }
        Span<byte> key = stackalloc byte[DurableKeys.KeySize];
        Span<byte> value = stackalloc byte[BenchValues.ValueSize];
        var samples = new List<Sample>();
        var learned = new List<LearnedSync>();
        long lastSynced = env.LastSyncedTransactionId;
        var lastSyncEndUtc = openedUtc;
        ulong next = 0;
        var stopwatch = Stopwatch.StartNew();
        while (true)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree(RecoveryRun.TreeName);
                for (var i = 0; i < puts; i++)
                {
                    DurableKeys.Write(next++, key);
                    BenchValues.Compose(key, value);
                    tree.Put(key, value);
                }
                tx.Commit();
            }
            long last = env.LastCommittedTransactionId, synced = env.LastSyncedTransactionId;
            if (synced != lastSynced)
            {
                ledger.Poll();
                var sync = Learn(learned.Count + 1, stopwatch.Elapsed.TotalSeconds, synced, lastSynced, lastSyncEndUtc, samples, ledger, rules,
                    out lastSyncEndUtc);
                learned.Add(sync);
                output.WriteLine(FormattableString.Invariant(
                    $"{SyncLine} sync {sync.Number} at {sync.AtSeconds:F1} s (transaction {sync.Transaction}): {sync.PeakBytes:N0} bytes to replay just before it ") + FormattableString.Invariant(
                    $"({sync.TriggerBytes:N0} when its flush started); triggered by the {rules.Describe(sync.Rule)}; rules holding then: {sync.Rules}"));
                ledger.ForgetBefore(synced);
                samples.Clear();
                lastSynced = synced;
            }
            long onDisk = env.JournalBytesOnDisk;
            samples.Add(new Sample(DateTime.UtcNow, last, onDisk, env.ScratchBytesInUse));
            if (learned.Count < learnSyncs)
            {
                if (ledger.Unpolled >= 64)
                    ledger.Poll();
                continue;
            }

            // The ring's snapshot costs a copy of every slot: taken every 64 records, and at every commit near the target.
            var cap = Cap(options, ledger, synced, onDisk);
            long estimate = ledger.BytesBetween(synced, ledger.LastTransactionId) + (last - ledger.LastTransactionId) * ledger.LastEntryBytes;
            bool near = cap.CapBytes >= WorthyCycle * options.MaxRecoveryJournalBytes && estimate >= 0.9 * cap.TargetBytes;
            if (near || ledger.Unpolled >= 64)
                ledger.Poll();
            if (!near)
                continue;
            cap = Cap(options, ledger, synced, onDisk);
            long span = ledger.BytesBetween(synced, last);
            if (span < cap.TargetBytes || cap.CapBytes < WorthyCycle * options.MaxRecoveryJournalBytes)
                continue;
            output.WriteLine(FormattableString.Invariant(
                $"{KilledLine} {last} {next} {synced} {stopwatch.Elapsed.TotalSeconds:F1} {span} {cap.TargetBytes} {cap.CapBytes} {(int)cap.Rule} ") + FormattableString.Invariant(
                $"{string.Join(',', learned.Select(s => s.PeakBytes))} {string.Join(',', learned.Select(s => s.Rule))} {ledger.PositionAfter(synced).End}"));
            output.Flush();
            Process.GetCurrentProcess().Kill();
            Thread.Sleep(Timeout.Infinite);
        }
    }

    /// <summary>
    /// The most this cycle lets pile up: the objective's bound, or less, the span at the end of the journal in service if
    /// moving to a new journal of the largest size would bring the journals on disk to their budget.
    /// </summary>
    private static CycleCap Cap(StorageOptions options, ReplaySpanLedger ledger, long synced, long journalBytesOnDisk)
    {
        var (toEnd, _) = ledger.BytesToEndOfJournalInService(synced);
        bool budgetAtMove = journalBytesOnDisk + options.MaxJournalFileBytes >= 2 * options.MaxJournalFileBytes;
        return budgetAtMove && toEnd < options.MaxRecoveryJournalBytes
            ? new CycleCap(toEnd, SyncRule.JournalsPiling)
            : new CycleCap(options.MaxRecoveryJournalBytes, SyncRule.RecoveryObjective);
    }

    /// <summary>
    /// One sync seen: its peak is the span at the last commit before the sync ended; its rule is judged at the first
    /// commit after its flush started (the flusher's cycle looked at its rules then), or at the sync's start if the flush
    /// it recorded came in an earlier cycle.
    /// </summary>
    private static LearnedSync Learn(int number, double atSeconds, long synced, long previousSynced, DateTime previousSyncEndUtc,
        List<Sample> samples, ReplaySpanLedger ledger, DefaultSyncRules rules, out DateTime syncEndUtc)
    {
        var (flush, sync) = ledger.SyncOf(synced);
        syncEndUtc = sync is { } s ? s.StartUtc + s.Duration : DateTime.UtcNow;
        var syncStartUtc = sync?.StartUtc ?? syncEndUtc;
        var lookUtc = flush is { } f && (sync is null || f.StartUtc + f.Duration >= syncStartUtc - TimeSpan.FromMilliseconds(100)) ? f.StartUtc : syncStartUtc;
        var end = syncEndUtc;
        var before = samples.LastOrDefault(x => x.Utc < end);
        long peak = before == default ? 0 : ledger.BytesBetween(previousSynced, before.Last);
        var look = samples.FirstOrDefault(x => x.Utc >= lookUtc);
        if (look == default && samples.Count > 0)
            look = samples[^1];
        long triggerBytes = look == default ? 0 : ledger.BytesBetween(previousSynced, look.Last);
        var holding = rules.Holding(new SyncLook(triggerBytes, look.JournalBytesOnDisk, look.ScratchBytes, syncStartUtc - previousSyncEndUtc));
        var described = FormattableString.Invariant(
            $"{string.Join(", ", holding)} (journal to replay {triggerBytes:N0}, journal files on disk {look.JournalBytesOnDisk:N0}, scratch {look.ScratchBytes:N0}, ") + FormattableString.Invariant(
            $"{(syncStartUtc - previousSyncEndUtc).TotalSeconds:F1} s since the previous sync)");
        return new LearnedSync(number, atSeconds, synced, peak, triggerBytes, holding[0], described);
    }
}
