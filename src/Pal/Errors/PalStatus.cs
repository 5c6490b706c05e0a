namespace Cairn.Pal;

/// <summary>Status codes of the native layer (CAIRN_OK and CAIRN_E_* in cairnpal.h).</summary>
public enum PalStatus
{
    /// <summary>Success (<c>CAIRN_OK</c>).</summary>
    Ok = 0,
    /// <summary>An OS error with no more specific status; the OS error code says which.</summary>
    OsError = 1,
    /// <summary>No space left: ENOSPC, EDQUOT, EFBIG, ERROR_DISK_FULL, or a write that made no progress.</summary>
    DiskFull = 2,
    /// <summary>The file or directory does not exist (ENOENT, ENOTDIR).</summary>
    NotFound = 3,
    /// <summary>The OS could not allocate memory (ENOMEM).</summary>
    OutOfMemory = 4,
    /// <summary>The device reported an I/O error (EIO).</summary>
    IOError = 5,
    /// <summary>Permission denied or a read-only file system (EACCES, EPERM, EROFS).</summary>
    AccessDenied = 6,
    /// <summary>An argument was refused, e.g. a direct write whose buffer, offset or length is not 4 KiB aligned.</summary>
    InvalidArgument = 7,
    /// <summary>Another holder has the lock (EWOULDBLOCK).</summary>
    Locked = 8,
    /// <summary>The file already exists (EEXIST), e.g. when creating with <see cref="PalOpenFlags.CreateNew"/>.</summary>
    AlreadyExists = 9,
    /// <summary>The file system or OS does not support the operation (EOPNOTSUPP, ENOSYS).</summary>
    Unsupported = 10,
    /// <summary>A read reached the end of the file before filling the buffer.</summary>
    EndOfFile = 11,
    /// <summary>A link or rename would cross file systems (EXDEV, ERROR_NOT_SAME_DEVICE).</summary>
    CrossDevice = 12,
    /// <summary>The file is at its file system's hard-link limit (EMLINK, ERROR_TOO_MANY_LINKS).</summary>
    TooManyLinks = 13,
}
