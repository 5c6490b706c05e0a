using System.Globalization;

namespace Cairn.Stress.Protocol;

/// <summary>
/// Where a stress directory keeps its environments: the directory itself when there is one, or a root in
/// <c>root/</c> and its branches in <c>b1/</c>, <c>b2/</c>, … (a journal group). Each environment has its own
/// workload seed, so no two hold the same data.
/// </summary>
internal static class EnvironmentLayout
{
    public static string Directory(string directory, int index, int branches)
        => branches == 0 ? directory : Path.Combine(directory, Name(index));

    public static string Name(int index) => index == 0 ? "root" : string.Create(CultureInfo.InvariantCulture, $"b{index}");

    public static long WorkloadSeed(long seed, int index) => unchecked(seed + index * 1_000_003L);
}
