namespace Cairn.Pal;

/// <summary>
/// A native I/O operation failed. Carries what a person needs to act on it: the operation, the
/// file, the offset where one applies, the classified status and the raw OS error.
/// </summary>
public class PalIOException : IOException
{
    public PalIOException(string message, PalStatus status, int osError, string operation, string? filePath, long? offset)
        : base(message)
    {
        Status = status;
        OsError = osError;
        Operation = operation;
        FilePath = filePath;
        Offset = offset;
    }

    public PalStatus Status { get; }

    /// <summary>errno on POSIX, GetLastError() on Windows; 0 when the failure did not come from the OS.</summary>
    public int OsError { get; }

    public string Operation { get; }

    public string? FilePath { get; }

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
