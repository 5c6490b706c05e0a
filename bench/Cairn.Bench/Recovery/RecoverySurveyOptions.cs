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

    public static RecoverySurveyOptions Parse(IReadOnlyList<string> args)
    {
        var options = new RecoverySurveyOptions();
        for (var i = 0; i < args.Count; i++)
        {
            var value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            options = args[i] switch
            {
                "--keys" => options with { FillKeys = int.Parse(value, CultureInfo.InvariantCulture) },
                "--puts" => options with { PutsPerTransaction = int.Parse(value, CultureInfo.InvariantCulture) },
                "--journal-mib" => options with { JournalBytes = long.Parse(value, CultureInfo.InvariantCulture) << 20 },
                _ => throw new ArgumentException($"unknown option {args[i]}; known: --keys N, --puts N, --journal-mib N"),
            };
            i++;
        }
        return options;
    }
}
