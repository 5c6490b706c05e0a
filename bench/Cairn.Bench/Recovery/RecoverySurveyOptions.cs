using System.Globalization;

namespace Cairn.Bench.Recovery;

/// <summary>What <c>--recovery-survey</c> builds; the defaults are the durability issue's setting.</summary>
public sealed record RecoverySurveyOptions
{
    /// <summary>Random keys the environment holds before the measured journal is written.</summary>
    public int FillKeys { get; init; } = 1_000_000;

    /// <summary>Puts per transaction while writing the journal to replay.</summary>
    public int PutsPerTransaction { get; init; } = 100;

    /// <summary>Journal bytes to write after the last sync, which recovery must then replay.</summary>
    public long JournalBytes { get; init; } = 256L << 20;

    /// <summary>Rounds of one cold and one warm open, alternating; the table gives each open and the medians.</summary>
    public int Repeat { get; init; } = 1;

    /// <summary>Where to keep the crashed image (and its <c>churn.txt</c>) for later <c>--image</c> runs; null: deleted.</summary>
    public string? SaveImage { get; init; }

    /// <summary>
    /// A crashed image saved by <c>--save-image</c> to open instead of building one, so two builds can be timed
    /// on the same bytes, run after run.
    /// </summary>
    public string? Image { get; init; }

    /// <summary>Which opens each round makes: "both" (cold then warm), "cold" or "warm" (to profile one kind alone).</summary>
    public string Only { get; init; } = "both";

    /// <summary>
    /// Each open in a new process, as an application restarting after a crash opens: with nothing compiled
    /// and no memory faulted in by earlier opens (which in one process make later opens faster than a restart).
    /// </summary>
    public bool FreshProcess { get; init; }

    public static RecoverySurveyOptions Parse(IReadOnlyList<string> args)
    {
        var options = new RecoverySurveyOptions();
        for (var i = 0; i < args.Count; i++)
        {
            if (args[i] == "--fresh-process")
            {
                options = options with { FreshProcess = true };
                continue;
            }
            var value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            options = args[i] switch
            {
                "--keys" => options with { FillKeys = int.Parse(value, CultureInfo.InvariantCulture) },
                "--puts" => options with { PutsPerTransaction = int.Parse(value, CultureInfo.InvariantCulture) },
                "--journal-mib" => options with { JournalBytes = long.Parse(value, CultureInfo.InvariantCulture) << 20 },
                "--repeat" => options with { Repeat = int.Parse(value, CultureInfo.InvariantCulture) },
                "--save-image" => options with { SaveImage = Path.GetFullPath(value) },
                "--image" => options with { Image = Path.GetFullPath(value) },
                "--only" when value is "cold" or "warm" or "both" => options with { Only = value },
                _ => throw new ArgumentException($"unknown option {args[i]}; known: --keys N, --puts N, --journal-mib N, --repeat N, --save-image DIR, --image DIR, --only cold|warm|both, --fresh-process"),
            };
            i++;
        }
        return options;
    }
}
