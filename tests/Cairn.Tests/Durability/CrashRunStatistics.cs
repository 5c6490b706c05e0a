using System.Diagnostics;

namespace Cairn.Tests.Durability;

/// <summary>Counts and timings of a crash run, for the test output (and for tuning the default cycle count).</summary>
public sealed class CrashRunStatistics
{
    private readonly Stopwatch _total = Stopwatch.StartNew();
    private TimeSpan _startup;
    private TimeSpan _checking;

    public int Cycles { get; private set; }
    public int Checks { get; private set; }
    public int Starts { get; private set; }
    public long Acknowledged { get; private set; }
    public long Lost { get; set; }
    public long HighestTransaction { get; set; }

    /// <summary>Recovered environments that failed (a latched failure, a commit, checkpoint or close that threw): must stay 0.</summary>
    public int FailedEnvironments { get; set; }

    /// <summary>Transactions the parent committed on recovered environments before closing them.</summary>
    public long CommittedAfterRecovery { get; set; }

    public void RecordCycle(CrashWriterOutcome outcome)
    {
        Cycles++;
        Acknowledged += outcome.Acknowledged;
        HighestTransaction = Math.Max(HighestTransaction, outcome.HighestReported);
    }

    /// <summary>Time from starting the child to its <c>start</c> line: process start-up, opening and any recovery.</summary>
    public void RecordStartup(TimeSpan elapsed)
    {
        Starts++;
        _startup += elapsed;
    }

    public void RecordCheck(TimeSpan elapsed)
    {
        Checks++;
        _checking += elapsed;
    }

    public string Summary()
    {
        var total = _total.Elapsed;
        return $"{Cycles} kill/reopen cycles in {total.TotalSeconds:F1} s ({Average(total, Cycles)} per cycle); " +
               $"{Acknowledged} transactions acknowledged (up to transaction {HighestTransaction}); {Lost} acknowledged transactions lost; " +
               $"{CommittedAfterRecovery} committed after recovery; {FailedEnvironments} environments failed; " +
               $"child start-up to 'start' {Average(_startup, Starts)} on average over {Starts}; " +
               $"{Checks} parent checks, {Average(_checking, Checks)} each on average";
    }

    private static string Average(TimeSpan total, int count)
        => count == 0 ? "n/a" : $"{total.TotalMilliseconds / count:F0} ms";
}
