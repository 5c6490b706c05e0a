namespace Cairn.Pal;

/// <summary>CAIRN_OPEN_* flags of cairnpal.h.</summary>
[Flags]
public enum PalOpenFlags
{
    /// <summary>Open an existing file for reading and writing (no other flag).</summary>
    ReadWrite = 0,
    /// <summary>Open for reading only.</summary>
    ReadOnly = 0x01,
    /// <summary>Create the file if it does not exist.</summary>
    Create = 0x02,
    /// <summary>Create the file, failing with <see cref="PalStatus.AlreadyExists"/> if it exists.</summary>
    CreateNew = 0x04,
    /// <summary>O_DIRECT / FILE_FLAG_NO_BUFFERING: buffers, offsets and lengths must be 4 KiB aligned.</summary>
    Direct = 0x08,
    /// <summary>O_DSYNC / FILE_FLAG_WRITE_THROUGH: a write returns once its data is durable.</summary>
    DataSync = 0x10,
    /// <summary>Hint that the file will be read from start to end (POSIX_FADV_SEQUENTIAL, FILE_FLAG_SEQUENTIAL_SCAN).</summary>
    Sequential = 0x20,
    /// <summary>Reported, never requested: Direct was asked for and the file system refused it.</summary>
    DirectFallback = 0x100,

    /// <summary>How journal files are opened: created if missing, direct and data-synced.</summary>
    Journal = Create | Direct | DataSync,
}
