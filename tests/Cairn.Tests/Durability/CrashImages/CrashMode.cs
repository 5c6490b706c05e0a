namespace Cairn.Tests.Durability.CrashImages;

/// <summary>What happens, in a simulated power loss, to the operations not yet durable at the crash point.</summary>
public enum CrashMode
{
    /// <summary>All of them are lost.</summary>
    DropUnsynced,

    /// <summary>Each 512-byte sector of every unsynced write survives or not, independently; other unsynced operations survive or not.</summary>
    TornSectors,

    /// <summary>Each unsynced operation survives whole, or not at all, independently.</summary>
    RandomSubset,

    /// <summary>
    /// The crash hits while the cut's own operation, a durable write (an O_DSYNC journal write), is still in
    /// flight: it was never acknowledged, and each of its 512-byte sectors or 4 KiB blocks (one or the other,
    /// at random) reached the disk or not; other unsynced operations fare as in <see cref="TornSectors"/>.
    /// Only meaningful where <see cref="CrashImageBuilder.IsDurableWrite"/>; what the crash must keep is what
    /// was acknowledged before that write completed.
    /// </summary>
    TornInFlightWrite,
}
