using System.CommandLine;
using Cairn.Cli.Output;

namespace Cairn.Cli.Commands;

/// <summary><c>cairn backup DIR DEST [--stream] [--compact]</c>: a consistent copy of an environment, as a directory or one file.</summary>
internal static class BackupCommand
{
    public const string Notes = """
        Copies the environment as of one transaction (printed). Without --stream, DEST is a new (or empty) directory
        that opens as an environment; with --stream, DEST is a new file holding a self-checking backup stream that
        'cairn restore' turns back into an environment. --compact copies only the pages in use (a smaller data file).
        A backup appears under DEST only when complete and synced. This command opens the environment itself, so the
        application must not have it open; an application backs up while it runs with StorageEnvironment.Backup.
        """;

    public static Command Create(CliContext context)
    {
        var directory = EnvironmentAccess.DirectoryArgument();
        var destination = new Argument<string>("DEST") { Description = "A new or empty directory, or with --stream a new file." };
        var stream = new Option<bool>("--stream") { Description = "Write one backup stream file instead of a directory." };
        var compact = new Option<bool>("--compact") { Description = "Copy only the pages in use." };
        var command = new Command("backup", "Copy an environment, as of one transaction, to a directory or a backup stream file.")
        {
            directory,
            destination,
            stream,
            compact,
        };
        command.SetAction(parse =>
        {
            string dir = parse.GetValue(directory)!, dest = parse.GetValue(destination)!;
            bool asStream = parse.GetValue(stream);
            var options = new BackupOptions { Compact = parse.GetValue(compact) };
            return Failures.Guard(context, "backup", EnvironmentAccess.DataFilePath(dir), () =>
                EnvironmentAccess.RunWritable(context, dir, env =>
                {
                    BackupResult result;
                    using (Progress.Start(context, $"backing up {dir} to {dest}"))
                        result = asStream ? BackupFile.Write(dest, s => env.Backup(s, options, CancellationToken.None)) : env.Backup(dest, options, CancellationToken.None);
                    context.Output.WriteLine(Describe("backed up", dir, dest, result));
                    return ExitCodes.Success;
                }));
        });
        return command;
    }

    public static string Describe(string what, string from, string to, BackupResult result)
        => $"ok: {what} {from} as of transaction {Numbers.Count(result.TransactionId)} to {to}: " +
           $"{Numbers.Size(result.Bytes)} in {Numbers.Count(result.Files)} file(s), {result.Duration.TotalSeconds:0.0} s";
}

/// <summary>
/// A backup stream file that appears under its name only when complete: written beside it as
/// <c>{name}.partial-{guid}</c> (locked while written), synced, renamed. A partial file a killed process left is
/// deleted by the next backup to the same name; one still being written is left alone.
/// </summary>
internal static class BackupFile
{
    public static BackupResult Write(string path, Func<Stream, BackupResult> backup)
    {
        if (File.Exists(path) || Directory.Exists(path))
            throw new CliFailure(ExitCodes.IoFailure, $"{path}: already exists; a backup stream goes into a new file");
        DeleteDeadPartials(path);
        string partial = $"{path}.partial-{Guid.NewGuid():N}";
        try
        {
            BackupResult result;
            using (var file = new FileStream(partial, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 20))
            {
                result = backup(file);
                file.Flush(flushToDisk: true);
            }
            File.Move(partial, path);
            Pal.PalFileSystem.SyncDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
            return result;
        }
        finally
        {
            File.Delete(partial);
        }
    }

    /// <summary>
    /// Deletes the partial files of <paramref name="path"/> whose writer is gone: the writer holds its file with
    /// <see cref="FileShare.None"/> (an flock the kernel drops when the process dies), so one this can lock is dead.
    /// A writer caught between creating its file and locking it fails with an I/O error rather than losing its file
    /// unseen; only two backups to one name at once can meet that way, and one of them fails anyway.
    /// </summary>
    private static void DeleteDeadPartials(string path)
    {
        string full = Path.GetFullPath(path);
        string folder = Path.GetDirectoryName(full)!;
        if (!Directory.Exists(folder))
            return;
        foreach (string partial in Directory.EnumerateFiles(folder, Path.GetFileName(full) + ".partial-*"))
        {
            try
            {
                using var dead = new FileStream(partial, FileMode.Open, FileAccess.ReadWrite, FileShare.None, 1);
                File.Delete(partial);
            }
            catch (IOException)
            {
                // Being written (or gone already).
            }
            catch (UnauthorizedAccessException)
            {
            }
        }
    }
}
