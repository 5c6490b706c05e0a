using System.Globalization;

namespace Cairn.Stress;

/// <summary>
/// What the engine's durability probe said about the stress directory's file system when the campaign opened it
/// (its log events 1302 and 1303): the file system type, whether O_DIRECT works there, the free space, and
/// whether the file system is volatile (tmpfs, ramfs), in which case no figure of the campaign says anything
/// about durability.
/// </summary>
public sealed record FileSystemReport(bool Probed, long FileSystemType, bool DirectIo, long FreeBytes, bool Volatile)
{
    public static FileSystemReport NotProbed { get; } = new(false, 0, false, 0, false);

    /// <summary>The usual name of <see cref="FileSystemType"/> (statfs f_type), or its number in hex.</summary>
    public string TypeName => FileSystemType switch
    {
        0xEF53 => "ext2/3/4",
        0x58465342 => "xfs",
        0x9123683E => "btrfs",
        0x01021994 => "tmpfs",
        0x858458F6 => "ramfs",
        0x2FC12FC1 => "zfs",
        0xF2F52010 => "f2fs",
        0x794C7630 => "overlayfs",
        0x6969 => "nfs",
        0xFF534D42 => "cifs",
        0x65735546 => "fuse",
        0x4D44 => "vfat",
        0x5346544E => "ntfs",
        _ => string.Create(CultureInfo.InvariantCulture, $"type 0x{FileSystemType:x}"),
    };

    public string Format()
    {
        if (!Probed)
            return "not probed (no environment was opened)";
        string text = string.Create(CultureInfo.InvariantCulture,
            $"{TypeName} (0x{FileSystemType:x}), O_DIRECT {(DirectIo ? "works" : "refused (journal writes go through the page cache with O_DSYNC)")}, {FreeBytes / (1024.0 * 1024 * 1024):F1} GiB free");
        return Volatile
            ? text + "; VOLATILE: fsync and O_DIRECT prove nothing there, so these figures mean nothing for durability"
            : text;
    }
}
