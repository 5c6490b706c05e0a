using System.CommandLine;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn compact DIR DEST</c>: a copy of a closed environment with only the pages in use.</summary>
internal static class CompactCommand
{
    public const string Notes = """
        Rebuilds every tree of the environment in DIR into DEST, a new or empty directory, so the free space stays behind
        and the data file is smaller; DIR is not changed (beyond the replay every open does). DEST appears only when
        complete and synced. To compact an environment an application has open, it calls StorageEnvironment.Backup with
        BackupOptions.Compact.
        """;

    public static Command Create(CliContext context)
    {
        var directory = EnvironmentAccess.DirectoryArgument();
        var destination = new Argument<string>("DEST") { Description = "A new or empty directory for the compacted copy." };
        var command = new Command("compact", "Copy an environment with only the pages in use into a new directory.")
        {
            directory,
            destination,
        };
        command.SetAction(parse =>
        {
            string dir = parse.GetValue(directory)!, dest = parse.GetValue(destination)!;
            return Failures.Guard(context, "compact", EnvironmentAccess.DataFilePath(dir), () =>
            {
                if (!File.Exists(EnvironmentAccess.DataFilePath(dir)))
                    throw new CliFailure(ExitCodes.IoFailure, $"{dir}: not a Cairn environment (no {StorageEnvironment.DataFileName}); nothing was opened or created");
                BackupResult result;
                using (Progress.Start(context, $"compacting {dir} into {dest}"))
                    result = EnvironmentBackup.Compact(dir, dest);
                context.Output.WriteLine(BackupCommand.Describe("compacted", dir, dest, result));
                return ExitCodes.Success;
            });
        });
        return command;
    }
}
