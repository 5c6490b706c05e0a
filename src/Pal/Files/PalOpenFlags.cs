namespace Cairn.Pal;

/// <summary>CAIRN_OPEN_* flags of cairnpal.h.</summary>
[Flags]
public enum PalOpenFlags
{
    ReadWrite = 0,
    ReadOnly = 0x01,
    Create = 0x02,
    CreateNew = 0x04,
    /// <summary>O_DIRECT / FILE_FLAG_NO_BUFFERING: buffers, offsets and lengths must be 4 KiB aligned.</summary>
    Direct = 0x08,
    /// <summary>O_DSYNC / FILE_FLAG_WRITE_THROUGH: a write returns once its data is durable.</summary>
    DataSync = 0x10,
    Sequential = 0x20,
    /// <summary>Reported, never requested: Direct was asked for and the file system refused it.</summary>
    DirectFallback = 0x100,

    Journal = Create | Direct | DataSync,
}
