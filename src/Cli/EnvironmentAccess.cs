using System.CommandLine;

namespace Cairn.Cli;

/// <summary>
/// Opens an environment the way every command looks at one. The engine has no read-only open, so this is the
/// ordinary open: it takes the environment's lock, replays the journals of an environment that was not closed
/// cleanly (cutting off a torn tail), and the close flushes and syncs what was replayed. What was acknowledged
/// never changes; the files may. A directory without a data file is refused rather than made an environment.
/// </summary>
internal static class EnvironmentAccess
{
    public const string HelpNote = """
        Opening: an environment's directory is opened as an application opens it. The command takes the environment's
        lock (exit code 3 while another process has it open) and, if the environment was not closed cleanly, replays its
        journals (a torn tail is cut off); closing then flushes and syncs the replayed transactions into the data file,
        exactly as the application's next open would. Acknowledged data never changes, but the files may. Nothing is
        created: a directory without cairn.data is refused.
        """;

    /// <summary>The DIR argument of the commands that open an environment.</summary>
    public static Argument<string> DirectoryArgument() => new("DIR") { Description = "The environment's directory (holding cairn.data and Journals/)." };

    public static string DataFilePath(string directory) => Path.Combine(directory, StorageEnvironment.DataFileName);

    /// <summary>Opens the environment in <paramref name="directory"/>, runs <paramref name="body"/> on it and closes it, showing progress for each.</summary>
    public static int Run(CliContext context, string directory, Func<StorageEnvironment, int> body)
    {
        var environment = Open(context, directory);
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

    private static void Close(CliContext context, StorageEnvironment environment, string directory)
    {
        using var progress = Progress.Start(context, $"closing {directory} (flushing and syncing what was replayed)");
        environment.Dispose();
    }

    private static StorageEnvironment Open(CliContext context, string directory)
    {
        if (!Directory.Exists(directory))
            throw new CliFailure(ExitCodes.IoFailure, $"{directory}: no such directory");
        if (!File.Exists(DataFilePath(directory)))
            throw new CliFailure(ExitCodes.IoFailure, $"{directory}: not a Cairn environment (no {StorageEnvironment.DataFileName}); nothing was opened or created");
        using var progress = Progress.Start(context, $"opening {directory} (replaying its journals if it was not closed cleanly)");
        return StorageEnvironment.Open(new StorageOptions(directory));
    }
}
