using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>
/// The part of lmdb.h (0.9.x) the benchmarks use, one declaration per function. Every argument is
/// blittable (opaque handles as <c>nint</c>, <see cref="MdbVal"/> by pointer), so the generated
/// stubs marshal nothing and a call costs only the transition.
/// </summary>
/// <remarks>
/// The read path (<c>mdb_txn_renew</c>, <c>mdb_txn_reset</c>, <c>mdb_get</c>, <c>mdb_cursor_get</c>)
/// skips the GC transition: on a reset read transaction each is a few hundred nanoseconds of pointer
/// chasing in the map with no lock, no syscall and no callback, which is the case the attribute is
/// for, and the transition would otherwise be a visible share of a single-read transaction. The one
/// way they can block is a page fault on a cold map, which only delays a GC. Everything that can
/// write, take the writer mutex or fsync keeps the transition.
/// </remarks>
internal static unsafe partial class LmdbNative
{
    internal const string LibraryName = "lmdb";

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_create(out nint env);

    [LibraryImport(LibraryName, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int mdb_env_open(nint env, string path, uint flags, uint mode);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_env_close(nint env);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_set_mapsize(nint env, nuint size);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_set_maxreaders(nint env, uint readers);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_set_maxdbs(nint env, uint dbs);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_sync(nint env, int force);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_env_get_flags(nint env, out uint flags);

    /// <summary>The library's own version string, e.g. "LMDB 0.9.24: (July 24, 2019)".</summary>
    [LibraryImport(LibraryName)]
    internal static partial byte* mdb_version(int* major, int* minor, int* patch);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_txn_begin(nint env, nint parent, uint flags, out nint txn);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_txn_commit(nint txn);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_txn_abort(nint txn);

    [LibraryImport(LibraryName)]
    [SuppressGCTransition]
    internal static partial void mdb_txn_reset(nint txn);

    [LibraryImport(LibraryName)]
    [SuppressGCTransition]
    internal static partial int mdb_txn_renew(nint txn);

    /// <param name="name">A NUL-terminated name, or null for the main (unnamed) database.</param>
    [LibraryImport(LibraryName)]
    internal static partial int mdb_dbi_open(nint txn, byte* name, uint flags, out uint dbi);

    [LibraryImport(LibraryName)]
    [SuppressGCTransition]
    internal static partial int mdb_get(nint txn, uint dbi, MdbVal* key, MdbVal* data);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_put(nint txn, uint dbi, MdbVal* key, MdbVal* data, uint flags);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_del(nint txn, uint dbi, MdbVal* key, MdbVal* data);

    [LibraryImport(LibraryName)]
    internal static partial int mdb_cursor_open(nint txn, uint dbi, out nint cursor);

    [LibraryImport(LibraryName)]
    [SuppressGCTransition]
    internal static partial int mdb_cursor_get(nint cursor, MdbVal* key, MdbVal* data, LmdbCursorOp op);

    [LibraryImport(LibraryName)]
    internal static partial void mdb_cursor_close(nint cursor);

    /// <summary>Static text for LMDB's own codes, strerror's for errno values.</summary>
    [LibraryImport(LibraryName)]
    internal static partial byte* mdb_strerror(int error);
}
