namespace Cairn.Samples.ReplicatedOrders;

/// <summary><c>status</c>: each node's own view (what <c>cairn cluster status</c> shows, in short).</summary>
internal static class StatusPrinter
{
    public static async Task<int> RunAsync(SampleArguments arguments)
    {
        await using var access = new ClusterAccess(ClusterLayout.LoadOrCreate(arguments.DataPath));
        ClusterAccess.Print(await access.StatusesAsync());
        return 0;
    }
}
