using System.ComponentModel;

namespace Cairn.Stress.Campaigns;

/// <summary>Runs one planned cycle end to end: start the child, let it die or stop it as planned, judge it, check.</summary>
internal sealed class CycleRunner(StressOptions options, CampaignTally tally, CampaignJudge judge)
{
    /// <summary>How many acknowledgements a campaign's closing clean-stop run waits for before it asks the child to stop.</summary>
    public const int ClosingAcknowledgements = 100;

    /// <summary>The cycle running now (or last), for a failure message.</summary>
    public CyclePlan? Current { get; private set; }

    public async Task KillAsync(CyclePlan plan)
    {
        Current = plan;
        var kill = plan.Kill ?? throw new ArgumentException("a kill cycle needs a kill plan", nameof(plan));
        using var child = Start(plan);
        var (line, what) = kill.Moment switch
        {
            KillMoment.AfterStart => (child.Transcript.Started, "'start'"),
            KillMoment.AfterFirstAck => (child.Transcript.WhenAcknowledged(1), "its first acknowledgement"),
            KillMoment.AtPoint => (Task.WhenAny(child.Ended, child.Transcript.WhenAcknowledged(1)), "its kill point or its first acknowledgement"),
            _ => (child.Transcript.Opening, "'opening'"),
        };
        await AwaitLineAsync(child, line, what);
        // A kill point may come during recovery, before any commit, or among the commits; if it has not come a while
        // after the first acknowledgement, the parent kills the child itself.
        if (kill.Moment == KillMoment.AtPoint)
            await Task.WhenAny(child.Ended, Task.Delay(kill.Delay));
        else if (kill.Delay > TimeSpan.Zero)
            await Task.Delay(kill.Delay);
        child.Kill();
        judge.JudgeKilled(await WaitForExitAsync(child), plan.Child);
        if (plan.Check is { } mode)
            judge.Check(mode, plan.Child.Storage);
    }

    /// <summary>The last child run that ended, judged or not (a soak run's samples are in it).</summary>
    public ChildRun? LastRun { get; private set; }

    /// <summary>Starts the child, lets it write until <paramref name="runFor"/> completes, asks it to stop, judges and checks.</summary>
    public async Task StopAsync(CyclePlan plan, Func<ChildHandle, Task> runFor, string runningUntil, TimeSpan runningFor = default)
    {
        Current = plan;
        using var child = Start(plan);
        await AwaitLineAsync(child, child.Transcript.Started, "'start'");
        await AwaitLineAsync(child, runFor(child), runningUntil, runningFor);
        child.RequestStop();
        judge.JudgeStopped(await WaitForExitAsync(child), plan.Child);
        judge.Check(plan.Check ?? CheckMode.RootFirstAlone, plan.Child.Storage);
    }

    private async Task<ChildRun> WaitForExitAsync(ChildHandle child) => LastRun = await child.WaitForExitAsync(options.ChildTimeout);

    private ChildHandle Start(CyclePlan plan)
    {
        ChildHandle child;
        try
        {
            child = ChildHandle.Start(options.ChildStartInfo, plan.Child);
        }
        catch (Exception e) when (e is Win32Exception or InvalidOperationException)
        {
            tally.RecordChildFailure();
            throw new CampaignFailure($"could not start the child: {e.Message}");
        }
        tally.SetLive(child.Transcript);
        return child;
    }

    private async Task AwaitLineAsync(ChildHandle child, Task line, string what, TimeSpan longer = default)
    {
        if (!await child.AwaitAsync(line, options.ChildTimeout + longer))
            judge.JudgeUnfinished(await WaitForExitAsync(child), what);
    }
}
