using System.CommandLine;

namespace Cairn.Cli;

/// <summary>
/// Opens an environment the way every command looks at one. Commands that inspect (info, verify, dump, iostats)
/// open it read-only (<see cref="ReadOnlyEnvironment.Open(StorageOptions)"/>): nothing on disk changes, an
/// environment that was not closed cleanly is recovered in memory only, and one that another process has open is
/// refused. A backup opens it as an application does (<see cref="RunWritable"/>).
/// </summary>
internal static class EnvironmentAccess
{
    public const string HelpNote = """
        Opening: info, verify, dump and iostats open an environment read-only: no file is created, written, cut or
        deleted. An environment that was not closed cleanly is recovered in memory (its journals replayed, nothing
        written back); a journal that ends in a damaged or torn entry is reported and left as it is (verify exits 1 on
        it). An environment another process has open is refused (exit code 3): its files change under a reader, so close
        it first or inspect a backup. backup opens it as an application does: it takes the lock, recovers, and its close
        flushes and syncs what was replayed. Nothing is created: a directory without cairn.data is refused.
        """;

    /// <summary>The DIR argument of the commands that open an environment.</summary>
    public static Argument<string> DirectoryArgument() => new("DIR") { Description = "The environment's directory (holding cairn.data and Journals/)." };

    public static string DataFilePath(string directory) => Path.Combine(directory, StorageEnvironment.DataFileName);

    /// <summary>Opens the environment in <paramref name="directory"/> read-only, runs <paramref name="body"/> on it and closes it.</summary>
    public static int Run(CliContext context, string directory, Func<ReadOnlyEnvironment, int> body)
    {
        ReadOnlyEnvironment environment;
        using (Progress.Start(context, $"opening {directory} read-only (replaying its journals in memory if it was not closed cleanly)"))
            environment = ReadOnlyEnvironment.Open(new StorageOptions(directory));
        using (environment)
            return body(environment);
    }

    /// <summary>
    /// Opens the environment in <paramref name="directory"/> as an application does (lock, recovery, a close that flushes
    /// and syncs), for a command that needs a writable environment; a directory without a data file is refused.
    /// </summary>
    public static int RunWritable(CliContext context, string directory, Func<StorageEnvironment, int> body)
    {
        if (!Directory.Exists(directory))
            throw new CliFailure(ExitCodes.IoFailure, $"{directory}: no such directory");
        if (!File.Exists(DataFilePath(directory)))
            throw new CliFailure(ExitCodes.IoFailure, $"{directory}: not a Cairn environment (no {StorageEnvironment.DataFileName}); nothing was opened or created");
        StorageEnvironment environment;
        using (Progress.Start(context, $"opening {directory} (replaying its journals if it was not closed cleanly)"))
            environment = StorageEnvironment.Open(new StorageOptions(directory));
        int exitCode;
        try
        {
            exitCode = body(environment);
        }
        catch
        {
            Close(context, environment, directory);
            throw;
        }
        Close(context, environment, directory);
        return exitCode;
    }

    /// <summary>A warning on standard error when the journal ends in a damaged or torn entry that the read-only open left as it is.</summary>
    public static void WarnOfJournalTail(CliContext context, string command, ReadOnlyEnvironment environment)
    {
        if (environment.JournalTail is { } tail)
            context.Error.WriteLine($"cairn {command}: warning: the journal ends in an entry that does not validate, left out of what is shown: " +
                                    $"{tail}{Environment.NewLine}  {tail.Problem} (cairn verify exits 1 on it)");
    }

    private static void Close(CliContext context, StorageEnvironment environment, string directory)
    {
        using var progress = Progress.Start(context, $"closing {directory} (flushing and syncing what was replayed)");
        environment.Dispose();
    }
}
