using System.Globalization;

namespace Cairn.Stress;

/// <summary>
/// What the stress workload's transactions look like: how many data trees, how many keys each may hold, how
/// many keys a transaction touches, value sizes, how often a value is large enough for overflow pages, and how
/// often an operation is a delete. Fixed for the life of a stress directory: its transactions are derived from
/// the seed and the shape, and a directory written with another shape is refused.
/// </summary>
public sealed record WorkloadShape
{
    /// <summary>Data trees, <c>d0</c>, <c>d1</c>, …; each transaction writes into several of them.</summary>
    public int Trees { get; init; } = 4;

    /// <summary>Distinct keys per data tree: a small space means keys are overwritten and deleted often.</summary>
    public int KeySpace { get; init; } = 2000;

    public int MinKeysPerTransaction { get; init; } = 2;

    public int MaxKeysPerTransaction { get; init; } = 8;

    /// <summary>Smallest data value; at least 12 bytes (the writing transaction's number and the operation's index).</summary>
    public int MinValueBytes { get; init; } = 16;

    public int MaxValueBytes { get; init; } = 300;

    /// <summary>About one transaction in this many puts a large value (overflow pages) into the log tree; 0: never.</summary>
    public int LargeValueEvery { get; init; } = 13;

    public int MinLargeValueBytes { get; init; } = 9 * 1024;

    public int MaxLargeValueBytes { get; init; } = 40 * 1024;

    /// <summary>About one data operation in this many is a delete; 0: never.</summary>
    public int DeleteEvery { get; init; } = 8;

    /// <summary>Transaction i deletes the log key of transaction i − this: how many log values stay live, so how large the environment grows.</summary>
    public int LogWindow { get; init; } = 300;

    /// <summary>Every this many transactions a tree is created and the one made three before it is dropped with all its pages.</summary>
    public int ExtraTreeEvery { get; init; } = 97;

    /// <summary>The extra trees hold large values (overflow runs, in the log's large range), so dropping one frees runs too.</summary>
    public bool LargeExtraTreeValues { get; init; }

    /// <summary>
    /// Runs of 5 to 50 pages in about one transaction in five (40–400 KiB values), freed 300 transactions later
    /// and reallocated in other shapes.
    /// </summary>
    public static WorkloadShape LargeValues { get; } = new()
    {
        LargeValueEvery = 5,
        MinLargeValueBytes = 40 * 1024,
        MaxLargeValueBytes = 400 * 1024,
    };

    /// <summary>
    /// The restart-and-grow campaign's workload (issue 30, item 1): every log value is 24 B to 1.3 MiB (most of them
    /// overflow runs), 4,000 of them live (about 2.6 GB), and a tree of large values dropped every 37th transaction.
    /// </summary>
    public static WorkloadShape RestartGrow { get; } = new()
    {
        MinValueBytes = 24,
        LargeValueEvery = 1,
        MinLargeValueBytes = 24,
        MaxLargeValueBytes = 1_300 * 1024,
        LogWindow = 4000,
        ExtraTreeEvery = 37,
        LargeExtraTreeValues = true,
    };

    /// <summary>Throws <see cref="ArgumentException"/> naming the first value out of range.</summary>
    public void Validate()
    {
        Require(Trees is >= 1 and <= 1000, nameof(Trees), "1..1000");
        Require(KeySpace is >= 1 and <= 100_000_000, nameof(KeySpace), "1..100,000,000");
        Require(MinKeysPerTransaction >= 0 && MaxKeysPerTransaction >= MinKeysPerTransaction && MaxKeysPerTransaction <= 10_000,
            nameof(MaxKeysPerTransaction), $"{nameof(MinKeysPerTransaction)}..10,000, with {nameof(MinKeysPerTransaction)} at least 0");
        Require(MinValueBytes >= 12 && MaxValueBytes >= MinValueBytes && MaxValueBytes <= 16 << 20,
            nameof(MaxValueBytes), $"{nameof(MinValueBytes)}..16 MiB, with {nameof(MinValueBytes)} at least 12");
        Require(LargeValueEvery >= 0, nameof(LargeValueEvery), "0 or more");
        Require(MinLargeValueBytes >= 8 && MaxLargeValueBytes >= MinLargeValueBytes && MaxLargeValueBytes <= 64 << 20,
            nameof(MaxLargeValueBytes), $"{nameof(MinLargeValueBytes)}..64 MiB, with {nameof(MinLargeValueBytes)} at least 8");
        Require(DeleteEvery >= 0, nameof(DeleteEvery), "0 or more");
        Require(LogWindow is >= 1 and <= 10_000_000, nameof(LogWindow), "1..10,000,000");
        Require(ExtraTreeEvery is >= 2 and <= 1_000_000, nameof(ExtraTreeEvery), "2..1,000,000");
    }

    /// <summary>One line naming every value: written into the environment, so a directory of another shape is recognised.</summary>
    public string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"trees={Trees} keys={KeySpace} per-tx={MinKeysPerTransaction}..{MaxKeysPerTransaction} values={MinValueBytes}..{MaxValueBytes} " +
        $"large=1/{LargeValueEvery}:{MinLargeValueBytes}..{MaxLargeValueBytes} deletes=1/{DeleteEvery}") +
        // Only when they differ from the values the first shapes had fixed, so directories those wrote are still recognised.
        (LogWindow != 300 ? string.Create(CultureInfo.InvariantCulture, $" log-window={LogWindow}") : "") +
        (ExtraTreeEvery != 97 ? string.Create(CultureInfo.InvariantCulture, $" extra-tree-every={ExtraTreeEvery}") : "") +
        (LargeExtraTreeValues ? " large-extra-trees" : "");

    private static void Require(bool ok, string name, string range)
    {
        if (!ok)
            throw new ArgumentException($"workload shape: {name} must be {range}", name);
    }
}
