using Cairn.Pal;

// In namespace Cairn with every other exception a caller of the engine may catch (docs/decisions.md, issue 26
// item 5), though the PAL throws them.
namespace Cairn;

/// <summary>
/// A native I/O operation failed. Carries what a person needs to act on it: the operation, the
/// file, the offset where one applies, the classified status and the raw OS error.
/// </summary>
public class PalIOException : IOException
{
    /// <summary>Creates the exception; <see cref="PalErrors.Create"/> picks the subclass and writes the message.</summary>
    /// <param name="message">The full message.</param>
    /// <param name="status">The classified native status.</param>
    /// <param name="osError">errno on POSIX, <c>GetLastError()</c> on Windows; 0 if the OS was not involved.</param>
    /// <param name="operation">What was being done (e.g. "writing the journal").</param>
    /// <param name="filePath">The file concerned, or null.</param>
    /// <param name="offset">The byte offset in the file where one applies, or null.</param>
    public PalIOException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
        : base(message)
    {
        Status = status;
        OsError = osError;
        Operation = operation;
        FilePath = filePath;
        Offset = offset;
    }

    /// <summary>The native layer's classification of the failure (disk full, not found, I/O error, ...).</summary>
    public PalStatus Status { get; }

    /// <summary>errno on POSIX, GetLastError() on Windows; 0 when the failure did not come from the OS.</summary>
    public int OsError { get; }

    /// <summary>What was being done when it failed, in words (e.g. "syncing the data file").</summary>
    public string Operation { get; }

    /// <summary>The file or directory concerned, or null when the operation had none.</summary>
    public string? FilePath { get; }

    /// <summary>The byte offset in <see cref="FilePath"/> where the failed read or write started, or null where none applies.</summary>
    public long? Offset { get; }
}

/// <summary>The disk (or quota) is full: ENOSPC, EDQUOT, ERROR_DISK_FULL, or a write that made no progress.</summary>
public sealed class DiskFullException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The file or directory does not exist.</summary>
public sealed class PalFileNotFoundException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The OS could not allocate memory for the operation.</summary>
public sealed class NativeOutOfMemoryException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The device reported an I/O error (EIO): the data written may not be on disk.</summary>
public sealed class DeviceIOException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>Another holder has the file's lock (usually another process has the environment open).</summary>
public sealed class FileLockedException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The OS refused access (permissions, read-only file system).</summary>
public sealed class PalAccessDeniedException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The link or rename would cross file systems (EXDEV, ERROR_NOT_SAME_DEVICE).</summary>
public sealed class PalCrossDeviceException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);

/// <summary>The file already has as many hard links as its file system allows (EMLINK, ERROR_TOO_MANY_LINKS).</summary>
public sealed class PalTooManyLinksException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
    : PalIOException(message, status, osError, operation, filePath, offset);
