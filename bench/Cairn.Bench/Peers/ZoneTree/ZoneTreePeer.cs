using ZoneTree;
using ZoneTree.Comparers;
using ZoneTree.Hashers;
using ZoneTree.Options;
using ZoneTree.Serializers;

namespace Cairn.Bench.Peers.ZoneTree;

/// <summary>Orders <see cref="Key16"/> as its bytes (big-endian halves), the order the other stores keep.</summary>
public sealed class Key16Comparer : IRefComparer<Key16>
{
    public int Compare(in Key16 x, in Key16 y)
    {
        var high = x.High.CompareTo(y.High);
        return high != 0 ? high : x.Low.CompareTo(y.Low);
    }
}

/// <summary>Hashes both halves for the mutable segment's Bloom filter (the key-value suite's keys differ only in the low half).</summary>
public sealed class Key16Hasher : IKeyHasher<Key16>
{
    public int GetHashCode(in Key16 key) => HashCode.Combine(key.High, key.Low);
}

/// <summary>
/// Opens ZoneTree (NuGet <c>ZoneTree</c> 2.1.3, pure managed LSM tree) as its documentation sets up a
/// persistent tree: <c>ZoneTreeFactory</c> with a data directory, <c>OpenOrCreate</c>, and a maintainer
/// (<c>CreateMaintainer</c>) that moves full mutable segments to disk and merges them in the background.
/// The WAL mode is the documented default, <c>AsyncCompressed</c> ("the recommended high-throughput
/// persistent WAL mode": records go to the WAL through a background writer, compressed). The package's
/// README says ordinary appends do not sync the disk per write in any mode, and that a write which must
/// survive a power loss before it is acknowledged awaits <c>SyncWALAsync()</c> (concurrent callers share
/// the sync); the durable store does exactly that. <see cref="WalModeVariable"/> picks another mode.
/// </summary>
public static class ZoneTreePeer
{
    /// <summary>Set to Sync, SyncCompressed or AsyncCompressed to override the WAL mode (default AsyncCompressed).</summary>
    public const string WalModeVariable = "CAIRN_BENCH_ZONETREE_WAL";

    public static WriteAheadLogMode WalMode =>
        Environment.GetEnvironmentVariable(WalModeVariable) is { Length: > 0 } text
            ? Enum.Parse<WriteAheadLogMode>(text, ignoreCase: true)
            : WriteAheadLogMode.AsyncCompressed;

    public static ZoneTreeInstance Open(string directory)
    {
        var mode = WalMode;
        var tree = new ZoneTreeFactory<Key16, Value100>()
            .SetDataDirectory(directory)
            .SetComparer(new Key16Comparer())
            // ZoneTree 2.x asks for a hasher for the mutable segment's Bloom filter when the key type has no built-in one.
            .SetKeyHasher(new Key16Hasher())
            .SetKeySerializer(new StructSerializer<Key16>())
            .SetValueSerializer(new StructSerializer<Value100>())
            // Nothing is deleted in the benchmarks, and a struct value has no natural deletion marker.
            .Configure(options => options.DisableDeletion())
            .ConfigureWriteAheadLogOptions(wal => wal.WriteAheadLogMode = mode)
            .OpenOrCreate();
        try
        {
            return new ZoneTreeInstance(tree, tree.CreateMaintainer(), directory, mode);
        }
        catch
        {
            tree.Dispose();
            throw;
        }
    }
}

/// <summary>An open tree and its maintainer; disposing waits for the maintainer's background work, then closes both.</summary>
public sealed class ZoneTreeInstance(IZoneTree<Key16, Value100> tree, IMaintainer maintainer, string directory, WriteAheadLogMode mode) : IDisposable
{
    public IZoneTree<Key16, Value100> Tree { get; } = tree;

    public string Describe() =>
        $"ZoneTree {PackageVersions.Of(typeof(ZoneTreeFactory<,>))}, data and WAL in {directory}; WAL mode {mode}, " +
        $"{Tree.Count()} records; maintainer on (background segment moves and merges)";

    public void Dispose()
    {
        maintainer.WaitForBackgroundThreads();
        maintainer.Dispose();
        Tree.Dispose();
    }
}
