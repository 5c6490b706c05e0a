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
}
