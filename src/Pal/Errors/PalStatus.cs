namespace Cairn.Pal;

/// <summary>Status codes of the native layer (CAIRN_OK and CAIRN_E_* in cairnpal.h).</summary>
public enum PalStatus
{
    Ok = 0,
    OsError = 1,
    DiskFull = 2,
    NotFound = 3,
    OutOfMemory = 4,
    IOError = 5,
    AccessDenied = 6,
    InvalidArgument = 7,
    Locked = 8,
    AlreadyExists = 9,
    Unsupported = 10,
    EndOfFile = 11,
    CrossDevice = 12,
    TooManyLinks = 13,
}
