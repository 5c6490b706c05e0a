namespace Cairn.Bench.Peers.Lmdb;

/// <summary>Flags of <c>mdb_env_open</c> (lmdb.h); only those the benchmarks consider.</summary>
[Flags]
public enum LmdbEnvironmentFlags : uint
{
    None = 0,
    /// <summary>No fsync at commit (data nor meta page); the OS writes back when it likes.</summary>
    NoSync = 0x10000,
    ReadOnly = 0x20000,
    /// <summary>fsync the data at commit but not the meta page; implied by <see cref="NoSync"/>.</summary>
    NoMetaSync = 0x40000,
    /// <summary>Write through a writable map instead of pwrite from malloc'd pages.</summary>
    WriteMap = 0x80000,
    /// <summary>Reader slots belong to transaction objects, not threads.</summary>
    NoTls = 0x200000,
    /// <summary>madvise(MADV_RANDOM) on the map.</summary>
    NoReadAhead = 0x800000,
    /// <summary>Do not zero the unused parts of malloc'd pages before writing them out.</summary>
    NoMemInit = 0x1000000,
}

/// <summary>Flags of <c>mdb_txn_begin</c>.</summary>
[Flags]
public enum LmdbTransactionFlags : uint
{
    None = 0,
    ReadOnly = 0x20000,
}

/// <summary>Flags of <c>mdb_dbi_open</c>.</summary>
[Flags]
public enum LmdbDatabaseFlags : uint
{
    None = 0,
    Create = 0x40000,
}

/// <summary>Flags of <c>mdb_put</c>.</summary>
[Flags]
public enum LmdbPutFlags : uint
{
    None = 0,
    NoOverwrite = 0x10,
    /// <summary>Keys arrive in order, so the put skips the search; the benchmarks do not use it.</summary>
    Append = 0x20000,
}

/// <summary><c>MDB_cursor_op</c>, in lmdb.h's order.</summary>
public enum LmdbCursorOp
{
    First = 0,
    GetCurrent = 4,
    Last = 6,
    Next = 8,
    Prev = 12,
    Set = 15,
    SetKey = 16,
    SetRange = 17,
}
