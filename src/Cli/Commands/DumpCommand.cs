using System.CommandLine;
using System.Text;
using Cairn.Cli.Output;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn dump DIR --tree T</c>: a tree's entries in key order, one per line, key and value separated by a tab.</summary>
internal static class DumpCommand
{
    public const string Notes = """
        One entry per line, the key, a tab and the value, in key order, so the output can be piped and compared; the
        number of entries goes to standard error. A tree that does not exist is a usage error (exit code 2) that lists
        the trees there are.
        """;

    public static Command Create(CliContext context)
    {
        var directory = EnvironmentAccess.DirectoryArgument();
        var tree = new Option<string>("--tree", "-t") { Description = "The tree to dump.", Required = true };
        var prefix = new Option<string?>("--prefix", "-p") { Description = "Only keys that start with this text (UTF-8)." };
        var prefixHex = new Option<string?>("--prefix-hex") { Description = "Only keys that start with these bytes, in hexadecimal." };
        var format = new Option<string>("--format", "-f")
        {
            Description = "How keys and values are printed: utf8 (text, with \\t \\n \\r \\\\ and \\xNN escapes for everything else) or hex.",
            DefaultValueFactory = _ => "utf8",
        };
        format.AcceptOnlyFromAmong("utf8", "hex");
        var limit = CountOption.Create("--limit", "-n", "Print at most this many entries.");
        var command = new Command("dump", "Print a tree's entries in key order, one per line: key, tab, value (UTF-8 or hex).")
        {
            directory, tree, prefix, prefixHex, format, limit,
        };
        command.Validators.Add(result =>
        {
            if (result.GetResult(prefix) is not null && result.GetResult(prefixHex) is not null)
                result.AddError("--prefix and --prefix-hex cannot be used together.");
            if (result.GetValue(prefixHex) is { } hex && ByteText.ParseHex(hex) is null)
                result.AddError($"--prefix-hex '{hex}' is not hexadecimal bytes.");
        });
        command.SetAction(parse =>
        {
            string dir = parse.GetValue(directory)!;
            byte[] keyPrefix = parse.GetValue(prefixHex) is { } hex ? ByteText.ParseHex(hex)! : Encoding.UTF8.GetBytes(parse.GetValue(prefix) ?? "");
            var request = new DumpRequest(parse.GetValue(tree)!, keyPrefix, parse.GetValue(format) == "hex", parse.GetValue(limit) ?? long.MaxValue);
            return Failures.Guard(context, "dump", EnvironmentAccess.DataFilePath(dir), () => EnvironmentAccess.Run(context, dir, env => Dump(context, env, request)));
        });
        return command;
    }

    private sealed record DumpRequest(string Tree, byte[] Prefix, bool Hex, long Limit);

    private static int Dump(CliContext context, ReadOnlyEnvironment env, DumpRequest request)
    {
        EnvironmentAccess.WarnOfJournalTail(context, "dump", env);
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree(request.Tree, out var tree))
        {
            var names = tx.GetTreeNames();
            throw new CliFailure(ExitCodes.Usage, $"there is no tree '{request.Tree}'; the trees are: " +
                (names.Count == 0 ? "(none)" : string.Join(", ", names.Select(n => $"'{n}'"))));
        }
        long written = 0;
        using (Progress.Start(context, $"dumping tree '{request.Tree}'", () => $"{Numbers.Count(Volatile.Read(ref written))} entries"))
        {
            using var cursor = tree.CreateCursor();
            for (bool more = request.Prefix.Length == 0 ? cursor.SeekFirst() : cursor.SeekPrefix(request.Prefix);
                 more && written < request.Limit;
                 more = cursor.MoveNext())
            {
                string key = request.Hex ? ByteText.Hex(cursor.Key) : ByteText.Utf8(cursor.Key);
                string value = request.Hex ? ByteText.Hex(cursor.Value) : ByteText.Utf8(cursor.Value);
                context.Output.Write(key);
                context.Output.Write('\t');
                context.Output.WriteLine(value);
                Volatile.Write(ref written, written + 1);
            }
        }
        context.Error.WriteLine($"cairn dump: {Numbers.Count(written)} entries of tree '{request.Tree}' ({Numbers.Count(tree.Count)} in all)");
        return ExitCodes.Success;
    }
}
