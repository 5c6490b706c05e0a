using System.Globalization;
using System.Reflection;
using RocksDbSharp;

namespace Cairn.Bench.Peers.RocksDb;

/// <summary>
/// Opens RocksDB the way the durable peer uses it and reports what it runs. The NuGet package
/// <c>RocksDB</c> (RocksDbSharp, 11.12.0.7641) carries its own native build,
/// <c>runtimes/linux-x64/native/librocksdb.so</c> (RocksDB 11.12.0, compression libraries linked in,
/// only libc, libm and libgcc_s needed), so nothing is installed on the machine; <see cref="Describe"/>
/// reads the version from the database's LOG, the path from /proc/self/maps and the options in force
/// from the OPTIONS file RocksDB writes at open.
/// </summary>
public static class RocksDbPeer
{
    /// <summary>The options written to the OPTIONS file that decide what a durable write costs, reported by <see cref="Describe"/>.</summary>
    private static readonly string[] s_reportedOptions =
    [
        "use_fsync", "manual_wal_flush", "enable_pipelined_write", "two_write_queues", "unordered_write",
        "allow_concurrent_memtable_write", "enable_write_thread_adaptive_yield", "recycle_log_file_num", "wal_bytes_per_sync", "wal_compression",
        "write_buffer_size",
    ];

    /// <summary>
    /// Opens (creating if missing) a database with RocksDB's default options otherwise: WAL on,
    /// <c>use_fsync=false</c> (the WAL is synced with fdatasync), no pipelined or unordered writes.
    /// </summary>
    public static RocksDbSharp.RocksDb Open(string directory) =>
        RocksDbSharp.RocksDb.Open(new DbOptions().SetCreateIfMissing(true), directory);

    /// <summary>Write options for durable puts: sync=true, WAL on; both read back, as the other peers' modes are.</summary>
    public static WriteOptions DurableWriteOptions()
    {
        var options = new WriteOptions().SetSync(true).DisableWal(0);
        if (Native.Instance.rocksdb_writeoptions_get_sync(options.Handle) == 0)
            throw new InvalidOperationException("RocksDB write options report sync=false after SetSync(true)");
        if (Native.Instance.rocksdb_writeoptions_get_disable_WAL(options.Handle) != 0)
            throw new InvalidOperationException("RocksDB write options report the WAL disabled");
        return options;
    }

    /// <summary>Library, version and the options in force for the database in <paramref name="directory"/>.</summary>
    public static string Describe(string directory, WriteOptions writeOptions)
    {
        var sync = Native.Instance.rocksdb_writeoptions_get_sync(writeOptions.Handle) != 0;
        var walDisabled = Native.Instance.rocksdb_writeoptions_get_disable_WAL(writeOptions.Handle) != 0;
        var package = typeof(RocksDbSharp.RocksDb).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "?";
        var plus = package.IndexOf('+', StringComparison.Ordinal);
        if (plus >= 0)
            package = package[..plus];
        var library = LoadedLibraryPath() ?? "(no rocksdb library found in /proc/self/maps)";
        var options = ReadOptionsFile(directory);
        var reported = string.Join(", ", s_reportedOptions.Select(name => $"{name}={options.GetValueOrDefault(name, "?")}"));
        return $"RocksDB {LogVersion(directory) ?? options.GetValueOrDefault("rocksdb_version", "?")} (RocksDbSharp {package}) from {library}; " +
            $"write options sync={sync}, disableWAL={walDisabled}; {reported}";
    }

    /// <summary>
    /// The DB-level WAL counters since the previous call (the "Interval WAL: N writes, M syncs" line
    /// of <c>rocksdb.dbstats</c>; reading the property starts the next interval): writes that went
    /// through the WAL and WAL syncs. With group commit one sync covers every write of its group, so
    /// writes ÷ syncs is operations per durable log write. RocksDB prints counts of 10,000 and more
    /// rounded ("12K"), so callers read an interval at least every 9,999 writes; a rounded count throws.
    /// </summary>
    public static (long Writes, long Syncs) ReadWalInterval(RocksDbSharp.RocksDb db)
    {
        var stats = db.GetProperty("rocksdb.dbstats") ?? throw new InvalidOperationException("RocksDB returned no rocksdb.dbstats");
        const string Prefix = "Interval WAL: ";
        foreach (var line in stats.Split('\n'))
        {
            if (!line.StartsWith(Prefix, StringComparison.Ordinal))
                continue;
            // "Interval WAL: 3200 writes, 391 syncs, 8.18 writes per sync, written: 0.00 GB, 1.11 MB/s"
            var parts = line[Prefix.Length..].Split(',', StringSplitOptions.TrimEntries);
            return (ParseCount(parts[0], "writes"), ParseCount(parts[1], "syncs"));
        }
        throw new InvalidOperationException($"no '{Prefix}' line in rocksdb.dbstats:\n{stats}");
    }

    private static long ParseCount(string part, string unit) =>
        part.EndsWith(" " + unit, StringComparison.Ordinal) &&
        long.TryParse(part.AsSpan(0, part.Length - unit.Length - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var count)
            ? count
            : throw new FormatException($"'{part}' is not an exact count of {unit} (RocksDB rounds counts of 10,000 and more)");

    /// <summary>The rocksdb library mapped into this process, from /proc/self/maps (Linux); null if none is.</summary>
    public static string? LoadedLibraryPath()
        => NativePeerLibraries.MappedLibraryPath(static name =>
            name.StartsWith("librocksdb", StringComparison.Ordinal) && name.Contains(".so", StringComparison.Ordinal));

    // "2026/11/23-18:34:30.636663 4672 RocksDB version: 11.12.0" near the top of LOG.
    private static string? LogVersion(string directory)
    {
        var log = Path.Combine(directory, "LOG");
        if (!File.Exists(log))
            return null;
        using var stream = new FileStream(log, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var reader = new StreamReader(stream);
        for (var i = 0; i < 20 && reader.ReadLine() is { } line; i++)
        {
            const string Marker = "RocksDB version: ";
            var at = line.IndexOf(Marker, StringComparison.Ordinal);
            if (at >= 0)
                return line[(at + Marker.Length)..].Trim();
        }
        return null;
    }

    // The newest OPTIONS-NNNNNN file: "  name=value" lines, sections ignored (the names read here are unique).
    private static Dictionary<string, string> ReadOptionsFile(string directory)
    {
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        var newest = Directory.GetFiles(directory, "OPTIONS-*").Where(f => !f.EndsWith(".dbtmp", StringComparison.Ordinal)).Order(StringComparer.Ordinal).LastOrDefault();
        if (newest is null)
            return values;
        foreach (var raw in File.ReadLines(newest))
        {
            var line = raw.Trim();
            var equals = line.IndexOf('=', StringComparison.Ordinal);
            if (equals <= 0 || line.StartsWith('#') || line.StartsWith('['))
                continue;
            values.TryAdd(line[..equals], line[(equals + 1)..]);
        }
        return values;
    }
}
