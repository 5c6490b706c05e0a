using Cairn.Opening;
using Microsoft.Extensions.Logging.Abstractions;

namespace Cairn;

public sealed partial class StorageEnvironment
{
    /// <summary>Opens the environment in <paramref name="directoryPath"/> read-only, with default options (see <see cref="OpenReadOnly(StorageOptions)"/>).</summary>
    public static ReadOnlyEnvironment OpenReadOnly(string directoryPath) => OpenReadOnly(new StorageOptions(directoryPath));

    /// <summary>
    /// Opens an existing environment read-only, changing nothing on disk (<see cref="ReadOnlyEnvironment"/>). An
    /// environment that was not closed cleanly is recovered in memory. Of the options, only those of opening and
    /// reading apply: <see cref="StorageOptions.DirectoryPath"/>, <see cref="StorageOptions.LockWaitTimeout"/>,
    /// <see cref="StorageOptions.MaxScratchBytes"/> (the memory the replayed pages may take) and
    /// <see cref="StorageOptions.LoggerFactory"/>.
    /// </summary>
    /// <exception cref="EnvironmentNotFoundException">No such directory, or no data file in it (nothing is created).</exception>
    /// <exception cref="EnvironmentLockedException">A process (or an instance in this one) has it open, read-only or not.</exception>
    /// <exception cref="ReadOnlyOpenRefusedException">Opening it would need a change on disk (the reason says which).</exception>
    /// <exception cref="JournalCorruptionException">A journal is damaged where recovery needs it (the message names the file and offset).</exception>
    /// <exception cref="PageCorruptionException">A page does not validate.</exception>
    /// <exception cref="StorageFormatException">The data file is not a Cairn data file of this format, or both header copies are damaged.</exception>
    public static ReadOnlyEnvironment OpenReadOnly(StorageOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        StorageOptionsValidation.Validate(options);
        var logger = (options.LoggerFactory ?? NullLoggerFactory.Instance).CreateLogger(LogCategory);
        var opened = ReadOnlyOpener.Open(options.DirectoryPath, DataFileName, options.LockWaitTimeout, options.MaxScratchBytes, logger);
        return new ReadOnlyEnvironment(options.DirectoryPath, opened);
    }
}
