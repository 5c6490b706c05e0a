namespace Cairn.Diagnostics;

/// <summary>The kinds of I/O an environment records in its <see cref="IoStats"/>.</summary>
public enum IoOperationKind : byte
{
    /// <summary>A write of one or more journal entries to the journal file.</summary>
    JournalWrite = 1,

    /// <summary>A batch of committed page versions written to the data file.</summary>
    DataFlush = 2,

    /// <summary>A sync (fdatasync) of the data file.</summary>
    DataSync = 3,
}
