using System.CommandLine;
using Cairn.Cli.Output;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn info DIR</c>: what <see cref="StorageEnvironment.GetInfo"/> says, as text or JSON.</summary>
internal static class InfoCommand
{
    public const string Notes = """
        Shows the data file and its format; the last committed, flushed and synced transactions and how many this open
        replayed; every tree with its entries, depth and pages; the pages in use, free and waiting for readers; and the
        journal files on disk with their sizes and hard-link counts (above 1: a journal shared within a journal group). A
        journal that ends in a damaged or torn entry is named (in --json: journalTail) and left as it is.
        """;

    public static Command Create(CliContext context)
    {
        var directory = EnvironmentAccess.DirectoryArgument();
        var json = new Option<bool>("--json") { Description = "Print the information as one JSON document instead of text." };
        var command = new Command("info", "Show an environment: data file, transaction ids, trees, how its pages are used, journal files.")
        {
            directory,
            json,
        };
        command.SetAction(parse =>
        {
            string dir = parse.GetValue(directory)!;
            return Failures.Guard(context, "info", EnvironmentAccess.DataFilePath(dir), () => EnvironmentAccess.Run(context, dir, env =>
            {
                var info = env.GetInfo();
                EnvironmentAccess.WarnOfJournalTail(context, "info", env);
                if (parse.GetValue(json))
                    CliJson.Write(context.Output, info);
                else
                    InfoText.Write(context.Output, info);
                return ExitCodes.Success;
            }));
        });
        return command;
    }
}
