using System.Diagnostics;
using Cairn.Stress.Checking;
using Cairn.Stress.Protocol;
using Cairn.Stress.Workload;

namespace Cairn.Stress.Campaigns;

/// <summary>
/// Reopens a stress directory's environments after a kill (timing each open: that is recovery), checks each
/// against its expected state (<see cref="StateInspection"/>), and makes each work: it commits the next
/// transactions, checkpoints, verifies and closes cleanly. Counts everything in the tally; throws
/// <see cref="CampaignFailure"/> at the first problem.
/// </summary>
internal sealed class EnvironmentChecker(string directory, int branches, int commitsAfterRecovery, StressModel[] models, TransactionBounds[] bounds,
    CampaignTally tally, ProbeCapture probe, ImpostorMembers? impostors = null)
{
    public void Check(CheckMode mode, StorageSettings storage)
    {
        if (mode == CheckMode.AsGroup && branches > 0)
        {
            CheckAsGroup(storage);
            return;
        }
        int[] order = mode == CheckMode.BranchesFirstAlone ? [.. Enumerable.Range(1, branches), 0] : [.. Enumerable.Range(0, branches + 1)];
        foreach (int k in order)
            CheckAlone(k, storage);
    }

    private void CheckAlone(int k, StorageSettings storage)
    {
        var env = OpenTimed(k, () => StorageEnvironment.Open(Options(k, storage)));
        long last;
        try
        {
            last = Inspect(env, k);
            models[k].Workload.Commit(env, last + 1, last + commitsAfterRecovery);
            env.Checkpoint();
            env.Verify();
            if (env.HasFailed)
                throw new InvalidOperationException("the environment failed");
        }
        catch (CampaignFailure)
        {
            Close(env, quietly: true);
            throw;
        }
        catch (Exception e)
        {
            tally.RecordRecoveryFailure();
            Close(env, quietly: true);
            throw new CampaignFailure($"{Name(k)} failed while working on after recovery: {e}");
        }
        Close(env, quietly: false, k);
        Worked(k, last);
    }

    /// <summary>
    /// Opens the root and every branch as a group again, checks each, commits into all of them at once through the
    /// group (even environments through <c>BeginWrite</c>, odd ones through <c>WriteAsync</c>), verifies, and closes
    /// them, branches first.
    /// </summary>
    private void CheckAsGroup(StorageSettings storage)
    {
        var environments = new StorageEnvironment?[branches + 1];
        var last = new long[branches + 1];
        impostors?.CopyRootWhileClosed(storage.Engine.LockWaitTimeout);
        try
        {
            environments[0] = OpenTimed(0, () => StorageEnvironment.Open(Options(0, storage)));
            for (int k = 1; k <= branches; k++)
                environments[k] = OpenTimed(k, () => environments[0]!.OpenBranch(Options(k, storage)));
            for (int k = 0; k <= branches; k++)
                last[k] = Inspect(environments[k]!, k);
            try
            {
                var commits = Enumerable.Range(0, branches + 1).Select(k => Task.Run(() => CommitAfterRecoveryAsync(environments[k]!, k, last[k]))).ToArray();
                // Copies of members try to join while the members commit; the commits are waited for either way.
                var joining = impostors is null ? Task.CompletedTask : Task.Run(() => impostors.TryToJoin([.. environments.Select(e => e!)], dir => storage.ToStorageOptions(dir, probe)));
                Task.WhenAll(commits).Wait();
                joining.GetAwaiter().GetResult();
                for (int k = 0; k <= branches; k++)
                {
                    environments[k]!.Verify();
                    if (environments[k]!.HasFailed || (k > 0 && !environments[k]!.SharesRootJournal))
                        throw new InvalidOperationException($"{Name(k)} failed or stopped sharing its root's journal");
                }
            }
            catch (Exception e) when (e is not CampaignFailure)
            {
                tally.RecordRecoveryFailure();
                throw new CampaignFailure($"the group failed while working on after recovery: {e}");
            }
        }
        catch
        {
            for (int k = branches; k >= 0; k--)
            {
                if (environments[k] is { } env)
                    Close(env, quietly: true);
            }
            throw;
        }
        for (int k = branches; k >= 0; k--)
            Close(environments[k]!, quietly: false, k);
        for (int k = 0; k <= branches; k++)
            Worked(k, last[k]);
    }

    private async Task CommitAfterRecoveryAsync(StorageEnvironment env, int k, long last)
    {
        var workload = models[k].Workload;
        for (long i = last + 1; i <= last + commitsAfterRecovery; i++)
        {
            if (k % 2 == 0)
                workload.Commit(env, i, i);
            else
                await env.WriteAsync((Workload: workload, I: i), static (tx, s) => s.Workload.Apply(tx, s.I));
        }
    }

    private long Inspect(StorageEnvironment env, int k)
    {
        var result = StateInspection.Inspect(env, models[k], bounds[k]);
        tally.RecordInspection(result);
        if (!result.IsClean)
            throw new CampaignFailure($"{Name(k)} (bounds: {bounds[k]}):{Environment.NewLine}" + string.Join(Environment.NewLine, result.Problems));
        return result.Last;
    }

    /// <summary>The environment was closed cleanly at L plus what the parent committed: that is both what the next child must find and all it can find.</summary>
    private void Worked(int k, long last)
    {
        long now = last + commitsAfterRecovery;
        bounds[k] = new TransactionBounds(now, now);
        tally.RecordCommittedAfterRecovery(commitsAfterRecovery);
    }

    private StorageEnvironment OpenTimed(int k, Func<StorageEnvironment> open)
    {
        var watch = Stopwatch.StartNew();
        StorageEnvironment env;
        try
        {
            env = open();
        }
        catch (Exception e)
        {
            tally.RecordRecoveryFailure();
            throw new CampaignFailure($"{Name(k)} did not open after the kill: {e}");
        }
        tally.RecordRecovery(watch.Elapsed);
        return env;
    }

    private void Close(StorageEnvironment env, bool quietly, int k = 0)
    {
        try
        {
            env.Dispose();
        }
        catch (Exception e) when (!quietly)
        {
            tally.RecordRecoveryFailure();
            throw new CampaignFailure($"{Name(k)} did not close cleanly after recovery: {e}");
        }
        catch (Exception)
        {
            // The check's own failure is the one to report.
        }
    }

    private StorageOptions Options(int k, StorageSettings storage)
        => storage.ToStorageOptions(EnvironmentLayout.Directory(directory, k, branches), probe);

    private string Name(int k) => branches == 0 ? "the environment" : EnvironmentLayout.Name(k);
}
