using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using Cairn.Hashing;

namespace Cairn.Bench.Hashing;

/// <summary>
/// <c>--hash-interleaved [--rounds N] [--millis N] [--kernels] [--sizes N,...]</c> (not BenchmarkDotNet): Cairn's own XXH3
/// (<see cref="Checksums.Compute(byte*, long, ulong)"/>, the call the engine makes) against System.IO.Hashing's
/// <c>XxHash3.HashToUInt64</c> on the same bytes, in the same warm process, interleaved: each round times every
/// contender over the same number of calls, the order rotated every round, so a burst of load on the shared
/// machine falls on all of them. <c>--kernels</c> adds each long-input kernel this machine runs as a contender.
/// Every call gets a new seed (as pages and entries do). A line per size and contender: the median ns per call
/// and the median and range of the rounds' speed ratios (System.IO.Hashing's time over the contender's: above 1,
/// the contender is faster).
/// </summary>
public static unsafe class HashInterleavedRun
{
    private static readonly int[] s_defaultSizes = [192, 4096, 8192, 65536];
    private const string Bcl = "System.IO.Hashing XxHash3";

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        int rounds = 21, millis = 40;
        bool kernels = false;
        int[] sizes = s_defaultSizes;
        for (int i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--rounds" when i + 1 < args.Count: rounds = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                case "--millis" when i + 1 < args.Count: millis = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
                case "--kernels": kernels = true; break;
                case "--sizes" when i + 1 < args.Count:
                    sizes = args[++i].Split(',').Select(size => int.Parse(size, CultureInfo.InvariantCulture)).ToArray();
                    if (sizes.Any(size => size is < 0 or > 65536))
                        throw new ArgumentException("--sizes: each from 0 to 65536 bytes");
                    break;
                default:
                    output.WriteLine("usage: --hash-interleaved [--rounds N] [--millis N] [--kernels] [--sizes N,...]");
                    return 2;
            }
        }
        var contenders = new List<(string Name, Xxh3Kernel? Kernel)> { (Bcl, null), ("Cairn Checksums", null) };
        if (kernels)
            contenders.AddRange(Enum.GetValues<Xxh3Kernel>().Where(Xxh3Long.IsSupported).Select(k => ($"Cairn Xxh3, {k} kernel", (Xxh3Kernel?)k)));
        output.WriteLine($"load at start: {File.ReadAllText("/proc/loadavg").Trim()}; Cairn's default XXH3 kernel here: {Xxh3Long.BestKernel}");
        output.WriteLine($"{rounds} rounds of about {millis} ms per contender and size, the order rotated every round.");
        output.WriteLine();
        output.WriteLine("| input | contender | ns per call (median) | GB/s | speed vs System.IO.Hashing, median (min-max) |");
        output.WriteLine("|---|---|---|---|---|");
        byte* buffer = (byte*)NativeMemory.AlignedAlloc(65536, 4096);
        try
        {
            new Random(42).NextBytes(new Span<byte>(buffer, 65536));
            foreach (int size in sizes)
                Measure(buffer, size, rounds, millis, contenders, output);
        }
        finally
        {
            NativeMemory.AlignedFree(buffer);
        }
        output.WriteLine();
        output.WriteLine($"load at end: {File.ReadAllText("/proc/loadavg").Trim()}");
        return 0;
    }

    private static void Measure(byte* buffer, int size, int rounds, int millis, List<(string Name, Xxh3Kernel? Kernel)> contenders, TextWriter output)
    {
        // Everything warm and past tiering before the calibration and the rounds: System.IO.Hashing's code and the
        // timing loops start as tier-0 code, replaced in the background after their first hundreds of calls.
        foreach (var contender in contenders)
        {
            var warming = Stopwatch.StartNew();
            while (warming.ElapsedMilliseconds < 500)
                Time(contender, buffer, size, 1000);
        }
        long calls = Calibrate(buffer, size, millis);
        for (int warm = 0; warm < 3; warm++)
        {
            foreach (var contender in contenders)
                Time(contender, buffer, size, calls);
        }
        var seconds = new double[contenders.Count, rounds];
        for (int round = 0; round < rounds; round++)
        {
            for (int k = 0; k < contenders.Count; k++)
            {
                int index = (k + round) % contenders.Count;
                seconds[index, round] = Time(contenders[index], buffer, size, calls);
            }
        }
        for (int index = 0; index < contenders.Count; index++)
        {
            double[] own = Enumerable.Range(0, rounds).Select(r => seconds[index, r]).ToArray();
            double[] ratios = Enumerable.Range(0, rounds).Select(r => seconds[0, r] / seconds[index, r]).ToArray();
            double ns = Median(own) * 1e9 / calls;
            string ratio = index == 0 ? "1 (the peer)" : string.Create(CultureInfo.InvariantCulture, $"{Median(ratios):F3} ({ratios.Min():F3}-{ratios.Max():F3})");
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {size:N0} B | {contenders[index].Name} | {ns:F1} | {size / ns:F1} | {ratio} |"));
        }
    }

    private static long Calibrate(byte* buffer, int size, int millis)
    {
        for (long calls = 1000; ; calls *= 4)
        {
            double seconds = TimeCairn(buffer, size, calls);
            if (seconds * 1000 >= millis / 4.0)
                return Math.Max(1000, (long)(calls * millis / (seconds * 1000)));
        }
    }

    private static double Time((string Name, Xxh3Kernel? Kernel) contender, byte* buffer, int size, long calls)
        => contender switch
        {
            (Bcl, _) => TimeBcl(buffer, size, calls),
            (_, null) => TimeCairn(buffer, size, calls),
            (_, Xxh3Kernel kernel) => TimeKernel(buffer, size, calls, kernel),
        };

    private static ulong s_sink;

    private static double TimeCairn(byte* buffer, int size, long calls)
    {
        ulong sink = 0;
        long start = Stopwatch.GetTimestamp();
        for (long i = 0; i < calls; i++)
            sink ^= Checksums.Compute(buffer, size, (ulong)i + 1);
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        s_sink ^= sink;
        return seconds;
    }

    private static double TimeKernel(byte* buffer, int size, long calls, Xxh3Kernel kernel)
    {
        ulong sink = 0;
        long start = Stopwatch.GetTimestamp();
        for (long i = 0; i < calls; i++)
            sink ^= Xxh3.Hash64(buffer, (nuint)size, (ulong)i + 1, kernel);
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        s_sink ^= sink;
        return seconds;
    }

    private static double TimeBcl(byte* buffer, int size, long calls)
    {
        ulong sink = 0;
        var data = new ReadOnlySpan<byte>(buffer, size);
        long start = Stopwatch.GetTimestamp();
        for (long i = 0; i < calls; i++)
            sink ^= System.IO.Hashing.XxHash3.HashToUInt64(data, i + 1);
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        s_sink ^= sink;
        return seconds;
    }

    private static double Median(double[] values)
    {
        double[] sorted = (double[])values.Clone();
        Array.Sort(sorted);
        return sorted[sorted.Length / 2];
    }
}
