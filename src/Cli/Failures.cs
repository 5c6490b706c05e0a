using Cairn.Pal;

namespace Cairn.Cli;

/// <summary>
/// Runs a command's body and turns what it throws into an exit code and a message on standard error. Damage
/// is reported from the engine's typed exceptions with the file and offset they carry, so a person (or a
/// script) can go straight to the bytes.
/// </summary>
internal static class Failures
{
    public static int Guard(CliContext context, string command, string? dataFilePath, Func<int> body)
    {
        try
        {
            return body();
        }
        catch (Exception e)
        {
            var (code, message) = Describe(e, dataFilePath);
            context.Error.WriteLine($"cairn {command}: {message}");
            return code;
        }
    }

    public static (int ExitCode, string Message) Describe(Exception e, string? dataFilePath) => e switch
    {
        CliFailure failure => (failure.ExitCode, failure.Message),
        VerificationException v => (ExitCodes.Damage,
            $"damaged: {v.FilePath}: {v.Problems.Count} problem(s){Environment.NewLine}  " + string.Join(Environment.NewLine + "  ", v.Problems)),
        PageCorruptionException p => (ExitCodes.Damage, Damaged(p.FilePath, p.PageNumber * StorageEnvironment.PageSize, p.Message)),
        TreeCorruptionException t => (ExitCodes.Damage, Damaged(dataFilePath ?? "the data file", t.PageNumber * StorageEnvironment.PageSize, t.Message)),
        JournalCorruptionException j => (ExitCodes.Damage, Damaged(j.FilePath ?? "a journal", j.EntryOffset, j.Message)),
        StorageFormatException f => (ExitCodes.Damage, Damaged(f.FilePath, f.Offset, f.Message)),
        EnvironmentLockedException locked => (ExitCodes.IoFailure, $"{locked.Message} The tools open an environment read-only and only while no " +
            "other process has it open (its files change under a reader): close it there first, or inspect a backup of it (cairn backup)."),
        PalIOException pal => (ExitCodes.IoFailure, pal.Offset is { } offset ? $"{pal.FilePath} at offset {offset}: {pal.Message}" : pal.Message),
        InvalidDataException data => (ExitCodes.IoFailure, data.Message),
        IOException or UnauthorizedAccessException => (ExitCodes.IoFailure, e.Message),
        _ => (ExitCodes.Unexpected, $"unexpected error (please report it): {e}"),
    };

    private static string Damaged(string file, long offset, string message) => $"damaged: {file} at offset {offset}{Environment.NewLine}  {message}";
}
