namespace Cairn.Stress;

/// <summary>How the child's environments flush and sync, which decides what a kill finds on disk.</summary>
public enum StorageProfile
{
    /// <summary>Each cycle picks <see cref="Flushing"/> or <see cref="NotFlushing"/> at random (a soak run takes <see cref="Flushing"/>).</summary>
    Mixed,

    /// <summary>
    /// Flushes and syncs every few milliseconds with 64 KiB–1 MiB journals: kills land during flushes, syncs,
    /// header writes, journal switches and deletions.
    /// </summary>
    Flushing,

    /// <summary>Nothing reaches the data file within a run: every kill leaves all of it to recovery from the journals.</summary>
    NotFlushing,

    /// <summary>The engine's defaults (what a host gets without tuning).</summary>
    Default,
}
