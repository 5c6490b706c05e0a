using System.Globalization;

namespace Cairn.Stress;

/// <summary>What a campaign found wrong; every count must be 0.</summary>
/// <param name="Lost">Acknowledged transactions missing after a reopen (every transaction up to the highest acknowledged one is owed).</param>
/// <param name="HalfApplied">Transactions found partly present, or holes in the sequence (counted by the transactions the differences name, at least one per bad reopen).</param>
/// <param name="Phantoms">Reopens that found a transaction past every one that was ever started.</param>
/// <param name="ReaderViolations">Snapshots a reader found breaking an invariant (balances, key counts, the newest transactions wholly there, nothing after them).</param>
/// <param name="VerifyFailures">Reopened environments <see cref="StorageEnvironment.Verify"/> found damaged.</param>
/// <param name="ChildFailures">Children that did not run as the protocol says: died of an error, hung, printed nonsense, or did not stop cleanly when asked.</param>
/// <param name="RecoveryFailures">Environments the parent could not open after a kill, or that failed while working on afterwards.</param>
public sealed record DurabilityFindings(long Lost, long HalfApplied, long Phantoms, long ReaderViolations, int VerifyFailures, int ChildFailures,
    int RecoveryFailures)
{
    public bool IsClean => Lost == 0 && HalfApplied == 0 && Phantoms == 0 && ReaderViolations == 0 && VerifyFailures == 0 && ChildFailures == 0
        && RecoveryFailures == 0;

    public string Format() => string.Create(CultureInfo.InvariantCulture,
        $"lost {Lost} · half-applied {HalfApplied} · phantom {Phantoms} · reader violations {ReaderViolations} · verify failures {VerifyFailures} · " +
        $"child failures {ChildFailures} · recovery failures {RecoveryFailures}");
}
