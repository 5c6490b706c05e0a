using Cairn.Stress;
using Cairn.Stress.Campaigns;
using Cairn.Stress.Checking;
using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>
/// The campaign's verdicts from made-up child transcripts over real environments: a broken checker must not
/// pass silently, so each kind of failure is shown to be counted and to stop the campaign.
/// </summary>
public class CampaignJudgeTests
{
    private const long Seed = 31337;

    [Fact]
    public void An_acknowledgement_the_database_does_not_hold_is_counted_as_lost()
    {
        using var dir = new TestDirectory("judge-lost");
        var (judge, tally) = Prepared(dir.Path, transactions: 100);

        judge.JudgeKilled(Run(137, "start 0 100", "ack 0 101", "ack 0 102", "ack 0 103"), Child(dir.Path));
        Assert.Equal(new TransactionBounds(103, 104), judge.Bounds(0));
        var failure = Assert.Throws<CampaignFailure>(() => judge.Check(CheckMode.RootFirstAlone, StorageSettings.Default));

        Assert.Contains("transactions 101..103 (3 of them)", failure.Message);
        var figures = tally.Snapshot();
        Assert.Equal(3, figures.Findings.Lost);
        Assert.False(figures.Findings.IsClean);
        Assert.Equal(3, figures.Acknowledged);
        Assert.Equal(1, figures.Kills);
    }

    [Fact]
    public void A_transaction_found_partly_is_counted_as_half_applied()
    {
        using var dir = new TestDirectory("judge-partial");
        var (judge, tally) = Prepared(dir.Path, transactions: 100);
        // What a broken engine might leave: most of transaction 101, without the step that numbers it.
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
            StateInspectionTests.WriteAllButLastStep(env, 101, Seed);

        judge.JudgeKilled(Run(137, "start 0 100"), Child(dir.Path));
        var failure = Assert.Throws<CampaignFailure>(() => judge.Check(CheckMode.RootFirstAlone, StorageSettings.Default));

        Assert.Contains("transactions seen partly: 101", failure.Message);
        var findings = tally.Snapshot().Findings;
        Assert.Equal(1, findings.HalfApplied);
        Assert.Equal(0, findings.Lost);
    }

    [Fact]
    public void Transactions_in_flight_may_be_there_wholly_but_none_past_them()
    {
        using var dir = new TestDirectory("judge-in-flight");
        var (judge, tally) = Prepared(dir.Path, transactions: 100);
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
            Workload.Commit(env, 101, 102);

        // Two callers: 101 acknowledged, 102 in flight (it made it), nothing past 103 possible.
        judge.JudgeKilled(Run(137, "start 0 100", "ack 0 101"), Child(dir.Path, callers: 2));
        judge.Check(CheckMode.RootFirstAlone, StorageSettings.Default);
        Assert.True(tally.Snapshot().Findings.IsClean);
        Assert.Equal(new TransactionBounds(102 + Commits, 102 + Commits), judge.Bounds(0));

        using (var env = StorageEnvironment.Open(new StorageOptions(dir.Path)))
            Workload.Commit(env, 103 + Commits, 105 + Commits);
        judge.JudgeKilled(Run(137, $"start 0 {102 + Commits}", $"ack 0 {103 + Commits}"), Child(dir.Path));
        var failure = Assert.Throws<CampaignFailure>(() => judge.Check(CheckMode.RootFirstAlone, StorageSettings.Default));
        Assert.Contains("was ever started", failure.Message);
        Assert.Equal(1, tally.Snapshot().Findings.Phantoms);
    }

    [Fact]
    public void A_child_that_reopens_below_what_was_acknowledged_has_lost_the_difference()
    {
        using var dir = new TestDirectory("judge-start");
        var (judge, tally) = Prepared(dir.Path, transactions: 100);
        judge.JudgeKilled(Run(137, "start 0 100", "ack 0 101", "ack 0 102", "ack 0 103", "ack 0 104", "ack 0 105"), Child(dir.Path));

        var failure = Assert.Throws<CampaignFailure>(() => judge.JudgeKilled(Run(137, "start 0 102"), Child(dir.Path)));
        Assert.Contains("reopened the database at 102", failure.Message);
        Assert.Equal(3, tally.Snapshot().Findings.Lost);
    }

    [Fact]
    public void A_reader_violation_fails_the_run()
    {
        using var dir = new TestDirectory("judge-reader");
        var (judge, tally) = Prepared(dir.Path, transactions: 10);
        var failure = Assert.Throws<CampaignFailure>(() =>
            judge.JudgeKilled(Run(137, "start 0 10", "ack 0 11", "violation 0 snapshot at transaction 11: the balances add up to 1, not 64000"), Child(dir.Path)));
        Assert.Contains("the balances add up to 1", failure.Message);
        Assert.Equal(1, tally.Snapshot().Findings.ReaderViolations);
    }

    [Fact]
    public void A_child_that_exits_or_breaks_the_protocol_instead_of_dying_is_a_child_failure()
    {
        using var dir = new TestDirectory("judge-child");
        var (judge, tally) = Prepared(dir.Path, transactions: 10);
        Assert.Throws<CampaignFailure>(() => judge.JudgeKilled(Run(3, "start 0 10", "ack 0 11"), Child(dir.Path)));
        Assert.Throws<CampaignFailure>(() => judge.JudgeKilled(Run(137, "start 0 11", "ack 0 12", "ack 0 12"), Child(dir.Path)));
        Assert.Throws<CampaignFailure>(() => judge.JudgeKilled(Run(137, "ack 0 13", "start 0 12"), Child(dir.Path)));
        Assert.Throws<CampaignFailure>(() => judge.JudgeStopped(Run(137, "start 0 12", "ack 0 13"), Child(dir.Path)));
        Assert.Equal(4, tally.Snapshot().Findings.ChildFailures);
    }

    [Fact]
    public void A_clean_stop_owes_exactly_what_was_acknowledged()
    {
        using var dir = new TestDirectory("judge-stop");
        var (judge, _) = Prepared(dir.Path, transactions: 10);
        judge.JudgeStopped(Run(0, "start 0 10", "ack 0 12", "ack 0 11", "stopped"), Child(dir.Path, callers: 8));
        Assert.Equal(new TransactionBounds(12, 12), judge.Bounds(0));
    }

    [Fact]
    public void A_directory_another_workload_wrote_is_refused()
    {
        using var dir = new TestDirectory("judge-foreign");
        StateInspectionTests.WriteTransactions(dir.Path, 5, seed: Seed + 1).Dispose();
        var judge = new CampaignJudge(dir.Path, Seed, new WorkloadShape(), 0, Commits, new CampaignTally(), new ProbeCapture());
        var e = Assert.Throws<InvalidOperationException>(judge.Prepare);
        Assert.Contains("another workload", e.Message);

        using var other = new TestDirectory("judge-foreign-app");
        using (var env = StorageEnvironment.Open(new StorageOptions(other.Path)))
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("users");
            tx.Commit();
        }
        var refused = Assert.Throws<InvalidOperationException>(new CampaignJudge(other.Path, Seed, new WorkloadShape(), 0, Commits, new CampaignTally(), new ProbeCapture()).Prepare);
        Assert.Contains("something other than a stress campaign", refused.Message);
    }

    private const int Commits = 3;

    private static StressWorkload Workload => new(Seed, new WorkloadShape());

    /// <summary>A directory holding workload transactions 1..<paramref name="transactions"/>, taken over by a judge.</summary>
    private static (CampaignJudge Judge, CampaignTally Tally) Prepared(string directory, long transactions)
    {
        StateInspectionTests.WriteTransactions(directory, transactions, Seed).Dispose();
        var tally = new CampaignTally();
        var judge = new CampaignJudge(directory, Seed, new WorkloadShape(), 0, Commits, tally, new ProbeCapture());
        judge.Prepare();
        Assert.Equal(new TransactionBounds(transactions, transactions), judge.Bounds(0));
        return (judge, tally);
    }

    private static ChildSettings Child(string directory, int callers = 0)
        => new(directory, Seed, new WorkloadShape(), 0, [callers == 0 ? 1 : 0], [callers], 0, StorageSettings.Default);

    private static ChildRun Run(int exitCode, params string[] lines)
    {
        var transcript = new ChildTranscript(environments: 1);
        transcript.Handle("opening");
        foreach (var line in lines)
            transcript.Handle(line);
        transcript.End();
        return transcript.Finish(exitCode, "");
    }
}
