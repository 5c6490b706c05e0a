using System.CommandLine;
using Cairn.Cli.Output;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn verify DIR</c>: the engine's full verification; damage is exit code 1 with the file and offset.</summary>
internal static class VerifyCommand
{
    public const string Notes = """
        Checks every tree's key order, separator bounds, depth, counts and page checksums, and that every page is exactly
        one of in use, free, or waiting for readers; opening has already checked the header and replayed and validated the
        journals. Exit code 0 when everything holds, 1 on damage, each problem printed with the file and offset where it
        was found. A journal that ends in an entry that does not validate is damage too ("damaged or torn: FILE, offset N,
        transaction T"): a crash may tear an unacknowledged write, but the bytes cannot show that the entry was not
        acknowledged, so verify reports it instead of cutting it off; the application's next open cuts it off.
        """;

    public static Command Create(CliContext context)
    {
        var directory = EnvironmentAccess.DirectoryArgument();
        var json = new Option<bool>("--json") { Description = "Print the result as one JSON document ({\"ok\": true, ...} or {\"ok\": false, \"error\": ...})." };
        var command = new Command("verify", "Check a whole environment; on damage, exit code 1 with the file and offset of each problem.")
        {
            directory,
            json,
        };
        command.SetAction(parse =>
        {
            string dir = parse.GetValue(directory)!;
            bool asJson = parse.GetValue(json);
            string dataFile = EnvironmentAccess.DataFilePath(dir);
            return Failures.Guard(context, "verify", dataFile, () =>
            {
                try
                {
                    return EnvironmentAccess.Run(context, dir, env => Verify(context, env, dir, asJson));
                }
                catch (Exception e) when (asJson && Failures.Describe(e, dataFile).ExitCode == ExitCodes.Damage)
                {
                    CliJson.Write(context.Output, new { ok = false, directory = dir, error = Failures.Describe(e, dataFile).Message });
                    throw;
                }
            });
        });
        return command;
    }

    private static int Verify(CliContext context, ReadOnlyEnvironment env, string directory, bool json)
    {
        VerificationReport report;
        using (Progress.Start(context, $"verifying {directory} (every tree, page and free-space bit)"))
            report = env.Verify();
        if (env.JournalTail is { } tail)
        {
            string message = $"{tail}{Environment.NewLine}  {tail.Problem}; everything before it verifies (as of transaction {Numbers.Count(report.TransactionId)})";
            if (json)
                CliJson.Write(context.Output, new { ok = false, directory, error = message, journalTail = tail, report });
            context.Error.WriteLine($"cairn verify: {message}");
            return ExitCodes.Damage;
        }
        if (json)
        {
            CliJson.Write(context.Output, new { ok = true, directory, report });
            return ExitCodes.Success;
        }
        context.Output.WriteLine(
            $"ok: {directory} as of transaction {Numbers.Count(report.TransactionId)}: {Numbers.Count(report.Trees)} trees, {Numbers.Count(report.Entries)} entries; " +
            $"{Numbers.Count(report.TotalPages)} pages: {Numbers.Count(report.PagesInUse)} in use, {Numbers.Count(report.FreePages)} free, " +
            $"{Numbers.Count(report.PagesWaitingForReaders)} waiting for readers");
        return ExitCodes.Success;
    }
}
