using System.Globalization;

namespace Cairn.Stress.Protocol;

internal enum ChildLineKind
{
    Unknown,
    /// <summary><c>opening</c>: about to open the environments (a kill aimed at opening and recovery waits for it).</summary>
    Opening,
    /// <summary><c>start K L</c>: environment K opened holding transactions up to L.</summary>
    Start,
    /// <summary><c>ack K I</c>: transaction I of environment K is durable (printed once its commit returned).</summary>
    Ack,
    /// <summary><c>violation K TEXT</c>: a reader of environment K saw a snapshot break an invariant.</summary>
    Violation,
    /// <summary><c>point NAME N</c>: the child reached the N-th occurrence of a kill point and kills itself now.</summary>
    Point,
    /// <summary><c>sample MS RSS HEAP SCRATCH QUEUE JOURNAL</c>: a soak measurement.</summary>
    Sample,
    /// <summary><c>stopped</c>: asked to stop, every environment closed cleanly.</summary>
    Stopped,
}

/// <summary>One parsed line of a child's standard output.</summary>
internal readonly record struct ChildLine(ChildLineKind Kind, int Environment = 0, long Number = 0, string Text = "", SoakSample? Sample = null);

/// <summary>
/// The child's output protocol, one line per event, written and flushed before the child moves on (an
/// acknowledgement is out before the next commit starts). Both sides use this class, so they cannot drift apart.
/// </summary>
internal static class ChildLines
{
    public const string Opening = "opening";
    public const string Stopped = "stopped";

    public static string Start(int environment, long last) => Format($"start {environment} {last}");

    public static string Ack(int environment, long transaction) => Format($"ack {environment} {transaction}");

    /// <summary>One line whatever the text holds.</summary>
    public static string Violation(int environment, string text)
        => Format($"violation {environment} {text.ReplaceLineEndings(" | ")}");

    public static string Point(string name, int occurrence) => Format($"point {name} {occurrence}");

    public static string Sample(SoakSample s)
        => Format($"sample {(long)s.Elapsed.TotalMilliseconds} {s.ResidentBytes} {s.ManagedHeapBytes} {s.ScratchBytes} {s.MergerQueueLength} {s.JournalBytes}");

    public static ChildLine Parse(string line)
    {
        var parts = line.Split(' ', 3);
        switch (parts[0])
        {
            case Opening when parts.Length == 1:
                return new ChildLine(ChildLineKind.Opening);
            case Stopped when parts.Length == 1:
                return new ChildLine(ChildLineKind.Stopped);
            case "start" or "ack" when parts.Length == 3 && Int(parts[1]) is { } k && Long(parts[2]) is { } n && n >= 0:
                return new ChildLine(parts[0] == "start" ? ChildLineKind.Start : ChildLineKind.Ack, k, n);
            case "violation" when parts.Length == 3 && Int(parts[1]) is { } k:
                return new ChildLine(ChildLineKind.Violation, k, Text: parts[2]);
            case "point" when parts.Length == 3 && Int(parts[2]) is { } n:
                return new ChildLine(ChildLineKind.Point, Number: n, Text: parts[1]);
            case "sample" when ParseSample(line) is { } sample:
                return new ChildLine(ChildLineKind.Sample, Sample: sample);
            default:
                return new ChildLine(ChildLineKind.Unknown, Text: line);
        }
    }

    private static SoakSample? ParseSample(string line)
    {
        var fields = line.Split(' ');
        if (fields.Length != 7)
            return null;
        var numbers = fields.Skip(1).Select(Long).ToArray();
        if (numbers.Any(n => n is null or < 0))
            return null;
        return new SoakSample(TimeSpan.FromMilliseconds(numbers[0]!.Value), numbers[1]!.Value, numbers[2]!.Value, numbers[3]!.Value,
            (int)Math.Min(int.MaxValue, numbers[4]!.Value), numbers[5]!.Value, 0);
    }

    private static string Format(FormattableString line) => line.ToString(CultureInfo.InvariantCulture);

    private static int? Int(string text) => int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) ? n : null;

    private static long? Long(string text) => long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long n) ? n : null;
}
