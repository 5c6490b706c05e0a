using System.Globalization;
using Cairn.Cluster.Tests.Nemesis.Disks;
using Cairn.Tests.Support;
using Xunit.Abstractions;

namespace Cairn.Cluster.Tests.Nemesis.Campaigns;

/// <summary>
/// The process nemesis's campaigns (issue 28 items 3 and 4). As CI runs them: one short seeded campaign each (seed 46
/// for the first: its 16 events include a dead member replaced, the leader removed and a fresh node added). Longer ones
/// with the same code, from the environment (README, "Cluster nemesis campaigns"):
/// <c>CAIRN_NEMESIS_CAMPAIGNS</c> campaigns of <c>CAIRN_NEMESIS_EVENTS</c> events each, seeds from
/// <c>CAIRN_NEMESIS_SEED</c> up.
/// </summary>
public sealed class ProcessCampaignTests(ITestOutputHelper output)
{
    [Fact]
    public async Task Kills_pauses_and_partitions_of_node_processes_lose_no_acknowledged_write_and_keep_the_history_linearizable()
    {
        using var dir = new TestDirectory("nemesis-campaign");
        foreach (var seed in Seeds(firstByDefault: 46))
            await NemesisCampaign.RunAsync(dir.File($"seed{seed}"), seed, Events(byDefault: 16), disks: null, output.WriteLine);
    }

    /// <summary>
    /// A node's disk filled and freed among the kills, pauses and partitions: the node fails-stop (its apply fails, or
    /// DotNext's mmapped log faults) and the campaign's supervisor starts it again once its disk has room
    /// (<see cref="ProcessCluster.ThrowIfAnyExited"/>). Needs root and loop devices; <c>CAIRN_NEMESIS_DISKS=1</c> runs it.
    /// </summary>
    [Fact]
    public async Task Full_disks_with_kills_pauses_and_partitions_lose_no_acknowledged_write_and_keep_the_history_linearizable()
    {
        if (Environment.GetEnvironmentVariable("CAIRN_NEMESIS_DISKS") != "1")
        {
            output.WriteLine("NOT RUN: the disk-full campaign needs loop mounts (root); CAIRN_NEMESIS_DISKS=1 runs it.");
            return;
        }

        using var dir = new TestDirectory("nemesis-campaign-disks");
        foreach (var seed in Seeds(firstByDefault: 101))
        {
            var disks = new List<NodeDisk>();
            try
            {
                for (var i = 0; i < 3; i++)
                {
                    Directory.CreateDirectory(dir.File($"seed{seed}-disk{i}"));
                    if (NodeDisk.TryCreate(dir.File($"seed{seed}-disk{i}"), 64, out var reason) is not { } disk)
                    {
                        output.WriteLine($"NOT RUN: the disk-full nemesis needs a loop mount, which failed here ({reason}).");
                        return;
                    }

                    disks.Add(disk);
                }

                await NemesisCampaign.RunAsync(dir.File($"seed{seed}"), seed, Events(byDefault: 12), disks, output.WriteLine);
            }
            finally
            {
                disks.ForEach(disk => disk.Dispose());
            }
        }
    }

    private static IEnumerable<int> Seeds(int firstByDefault)
    {
        var first = Number("CAIRN_NEMESIS_SEED") ?? firstByDefault;
        return Enumerable.Range(first, Number("CAIRN_NEMESIS_CAMPAIGNS") ?? 1);
    }

    private static int Events(int byDefault) => Number("CAIRN_NEMESIS_EVENTS") ?? byDefault;

    private static int? Number(string variable)
        => Environment.GetEnvironmentVariable(variable) is { Length: > 0 } text
            ? int.Parse(text, NumberStyles.None, CultureInfo.InvariantCulture)
            : null;
}
