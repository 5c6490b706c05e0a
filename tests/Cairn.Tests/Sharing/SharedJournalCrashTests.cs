using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Tests.Sharing;

/// <summary>
/// A journal group killed with SIGKILL, as a stress campaign (Cairn.Stress) with branches: a child process opens
/// a root and 8 branches and commits into all nine at once, from threads through <c>BeginWrite</c>/<c>Commit</c>
/// and callers through <c>WriteAsync</c> (0 to 2 of each per environment and cycle), acknowledging each
/// transaction once its commit returned, while the root sends 1, 2 or 4 shared writes at once (chosen per
/// cycle). The campaign kills it at random moments and at named points (a branch's link to a root journal among
/// them), reopens every environment and checks each: every acknowledged transaction present, none half-applied,
/// no holes, <see cref="StorageEnvironment.Verify"/> passing. The checks take turns: the root alone first, then
/// each branch alone; each branch alone first (its root not open), then the root; the group again (root, then
/// <see cref="StorageEnvironment.OpenBranch"/> for each), committing into all nine at once, while a copy of the root's
/// folder and a backup of a branch try to join and must be refused as duplicate ids with their files unchanged. A quarter of the kills
/// leave recovery to the next child, so journals and their links pile up. Half the cycles (at random) flush and
/// sync every few milliseconds, so each environment deletes its own links while the others keep theirs; the
/// others never flush.
/// </summary>
/// <remarks>
/// <c>CAIRN_SHARED_CRASH_CYCLES</c> sets the number of kills (default 90); <c>CAIRN_CRASH_SEED</c> replays the
/// workloads and the choices of each cycle (the kill moments themselves depend on timing).
/// </remarks>
public sealed class SharedJournalCrashTests(ITestOutputHelper output)
{
    private const int DefaultKills = 90;

    [Fact]
    public async Task Every_transaction_acknowledged_by_a_root_or_its_branches_survives_SIGKILL()
    {
        var report = await Campaigns.KillAsync("shared-crash", "CAIRN_SHARED_CRASH_CYCLES", DefaultKills,
            o => o with { Branches = 8, Writers = 2, Callers = 2, Readers = 1, CommitsAfterRecovery = 5 }, output);
        // Every third check opens the group again, and each of those has two copies of members try to join.
        Assert.True(report.DuplicateIdsRefused >= 2, report.Format());
    }
}
