using System.CommandLine;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn restore BACKUP DIR</c>: a backup stream file made an environment again, checked before it appears.</summary>
internal static class RestoreCommand
{
    public const string Notes = """
        Reads a backup stream file written by 'cairn backup --stream' (or StorageEnvironment.Backup to a stream) into DIR,
        a new or empty directory. Every checksum is checked before DIR appears: a damaged or truncated backup is refused
        with exit code 1, the file and the offset of the damage, and DIR is left as it was. A directory backup needs no
        restore: it is an environment; open it, or copy it, as it is.
        """;

    public static Command Create(CliContext context)
    {
        var backup = new Argument<string>("BACKUP") { Description = "The backup stream file." };
        var directory = new Argument<string>("DIR") { Description = "A new or empty directory for the environment." };
        var command = new Command("restore", "Restore a backup stream file into a new environment directory, checking every byte first.")
        {
            backup,
            directory,
        };
        command.SetAction(parse =>
        {
            string from = parse.GetValue(backup)!, dir = parse.GetValue(directory)!;
            return Failures.Guard(context, "restore", from, () =>
            {
                if (Directory.Exists(from))
                    throw new CliFailure(ExitCodes.Usage, $"{from} is a directory backup: it is an environment already; open it (or copy it) as it is");
                if (!File.Exists(from))
                    throw new CliFailure(ExitCodes.IoFailure, $"{from}: no such file");
                BackupResult result;
                using (var stream = new FileStream(from, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 20))
                using (Progress.Start(context, $"restoring {from} into {dir}"))
                    result = EnvironmentBackup.Restore(stream, dir);
                context.Output.WriteLine(BackupCommand.Describe("restored", from, dir, result));
                return ExitCodes.Success;
            });
        });
        return command;
    }
}
