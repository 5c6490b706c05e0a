using System.Globalization;
using System.Text;

namespace Cairn.Cluster.Tests.Linearizability;

/// <summary>A history's text is malformed: the message names the line.</summary>
public sealed class HistoryFormatException(int line, string message)
    : FormatException($"history line {line}: {message}")
{
    public int Line { get; } = line;
}

/// <summary>
/// The text form of a history, saved as a failing campaign's artifact and parsed back to replay the check. One line
/// per event, in time order, each a verb and <c>name=value</c> fields:
/// <code>
/// cairn-history version=1 ticks-per-second=1000000000
/// invoke id=3 client=1 at=1234 op=put key="k" value="v"
/// invoke id=4 client=2 at=1240 op=cas key="k" expected=absent value="w"
/// ok id=3 at=1300
/// ok id=4 at=1302 swapped=true
/// ok id=5 at=1310 read="v"
/// fail id=6 at=1320
/// unknown id=7 at=1330
/// </code>
/// Strings are URI-escaped inside quotes (so they hold no space or quote); <c>absent</c> is a missing value. An
/// invoke with no completion line is an operation the history ended before hearing of: unknown. Lines starting
/// with <c>#</c> are comments.
/// </summary>
public static class HistoryText
{
    private const string Header = "cairn-history";

    public static string Write(History history)
    {
        var events = new List<(long At, int Order, int Id, string Line)>();
        foreach (var op in history.Operations)
        {
            events.Add((op.InvokedAt, 0, op.Id, InvokeLine(op)));
            if (op.Completion.At is long at)
                events.Add((at, 1, op.Id, CompletionLine(op, at)));
        }
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{Header} version=1 ticks-per-second={history.TicksPerSecond}\n");
        foreach (var e in events.OrderBy(e => e.At).ThenBy(e => e.Order).ThenBy(e => e.Id))
            text.Append(e.Line).Append('\n');
        return text.ToString();
    }

    private static string InvokeLine(Operation op)
    {
        var call = op.Call;
        var line = new StringBuilder().Append(CultureInfo.InvariantCulture,
            $"invoke id={op.Id} client={op.Client} at={op.InvokedAt} op={KindName(call.Kind)} key={Encode(call.Key)}");
        if (call.Kind == OperationKind.CompareAndSet)
            line.Append(" expected=").Append(Encode(call.Expected));
        if (call.Kind is OperationKind.Put or OperationKind.CompareAndSet)
            line.Append(" value=").Append(Encode(call.Value));
        return line.ToString();
    }

    private static string CompletionLine(Operation op, long at)
    {
        var c = op.Completion;
        string verb = c.Outcome switch { Outcome.Ok => "ok", Outcome.Fail => "fail", _ => "unknown" };
        string line = string.Create(CultureInfo.InvariantCulture, $"{verb} id={op.Id} at={at}");
        if (c.Outcome == Outcome.Ok && op.Call.Kind == OperationKind.Get)
            line += " read=" + Encode(c.Read);
        if (c.Outcome == Outcome.Ok && op.Call.Kind == OperationKind.CompareAndSet)
            line += c.Swapped ? " swapped=true" : " swapped=false";
        return line;
    }

    public static History Parse(string text)
    {
        var lines = text.Split('\n');
        long? ticksPerSecond = null;
        var invokes = new Dictionary<int, (int Line, int Client, long At, OperationCall Call)>();
        var completions = new Dictionary<int, Completion>();
        for (int i = 0; i < lines.Length; i++)
        {
            int number = i + 1;
            string line = lines[i].TrimEnd('\r').Trim();
            if (line.Length == 0 || line.StartsWith('#'))
                continue;
            var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            var fields = new Fields(number, parts);
            if (ticksPerSecond is null)
            {
                if (parts[0] != Header || fields.Long("version") != 1)
                    throw new HistoryFormatException(number, $"expected the header '{Header} version=1 ticks-per-second=N', found '{line}'");
                ticksPerSecond = fields.Long("ticks-per-second");
                if (ticksPerSecond <= 0)
                    throw new HistoryFormatException(number, "ticks-per-second must be positive");
                continue;
            }
            int id = fields.Int("id");
            long at = fields.Long("at");
            if (parts[0] == "invoke")
            {
                if (!invokes.TryAdd(id, (number, fields.Int("client"), at, ParseCall(fields))))
                    throw new HistoryFormatException(number, $"operation {id} is invoked twice");
                continue;
            }
            if (!invokes.TryGetValue(id, out var invoke))
                throw new HistoryFormatException(number, $"operation {id} completes but was never invoked before this line");
            if (at < invoke.At)
                throw new HistoryFormatException(number, $"operation {id} completes at {at}, before its invoke at {invoke.At}");
            if (!completions.TryAdd(id, ParseCompletion(fields, parts[0], at, invoke.Call.Kind)))
                throw new HistoryFormatException(number, $"operation {id} completes twice");
        }
        if (ticksPerSecond is null)
            throw new HistoryFormatException(1, "the history is empty: no header line");
        var operations = invokes.Select(kv => new Operation(kv.Key, kv.Value.Client, kv.Value.Call, kv.Value.At,
            completions.TryGetValue(kv.Key, out var c) ? c : Completion.Unknown(null)));
        return new History(operations, ticksPerSecond.Value);
    }

    private static OperationCall ParseCall(Fields fields)
    {
        string key = fields.String("key") ?? throw fields.Error("key may not be absent");
        return fields.Word("op") switch
        {
            "put" => OperationCall.Put(key, fields.String("value") ?? throw fields.Error("a put's value may not be absent")),
            "get" => OperationCall.Get(key),
            "delete" => OperationCall.Delete(key),
            "cas" => OperationCall.CompareAndSet(key, fields.String("expected"),
                fields.String("value") ?? throw fields.Error("a compare-and-set's value may not be absent")),
            var other => throw fields.Error($"unknown op '{other}' (put, get, delete or cas)"),
        };
    }

    private static Completion ParseCompletion(Fields fields, string verb, long at, OperationKind kind) => verb switch
    {
        "ok" => kind switch
        {
            OperationKind.Get => Completion.OkRead(at, fields.String("read")),
            OperationKind.CompareAndSet => Completion.OkSwapped(at, fields.Word("swapped") switch
            {
                "true" => true,
                "false" => false,
                var other => throw fields.Error($"swapped must be true or false, not '{other}'"),
            }),
            _ => Completion.Ok(at),
        },
        "fail" => Completion.Fail(at),
        "unknown" => Completion.Unknown(at),
        _ => throw fields.Error($"unknown event '{verb}' (invoke, ok, fail or unknown)"),
    };

    private static string KindName(OperationKind kind) => kind switch
    {
        OperationKind.Put => "put",
        OperationKind.Get => "get",
        OperationKind.Delete => "delete",
        _ => "cas",
    };

    private static string Encode(string? value) => value is null ? "absent" : $"\"{Uri.EscapeDataString(value)}\"";

    /// <summary>A line's <c>name=value</c> fields after its verb.</summary>
    private sealed class Fields
    {
        private readonly int _line;
        private readonly Dictionary<string, string> _values = [];

        public Fields(int line, string[] parts)
        {
            _line = line;
            foreach (var part in parts.Skip(1))
            {
                int eq = part.IndexOf('=');
                if (eq <= 0 || !_values.TryAdd(part[..eq], part[(eq + 1)..]))
                    throw Error($"'{part}' is not a name=value field, or its name repeats");
            }
        }

        public HistoryFormatException Error(string message) => new(_line, message);

        public string Word(string name) => _values.TryGetValue(name, out var v) ? v : throw Error($"missing field '{name}'");

        public long Long(string name) =>
            long.TryParse(Word(name), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long v) ? v : throw Error($"field '{name}' is not an integer");

        public int Int(string name) =>
            int.TryParse(Word(name), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int v) ? v : throw Error($"field '{name}' is not an integer");

        /// <summary>A quoted, escaped string, or <c>null</c> for <c>absent</c>.</summary>
        public string? String(string name)
        {
            string raw = Word(name);
            if (raw == "absent")
                return null;
            if (raw.Length < 2 || raw[0] != '"' || raw[^1] != '"' || raw[1..^1].Contains('"'))
                throw Error($"field '{name}' must be a quoted string or absent, not {raw}");
            return Uri.UnescapeDataString(raw[1..^1]);
        }
    }
}
