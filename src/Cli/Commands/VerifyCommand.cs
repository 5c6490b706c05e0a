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
        was found.
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

    private static int Verify(CliContext context, StorageEnvironment env, string directory, bool json)
    {
        VerificationReport report;
        using (Progress.Start(context, $"verifying {directory} (every tree, page and free-space bit)"))
            report = env.Verify();
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
