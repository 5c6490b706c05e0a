using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Bench.Peers;

/// <summary>
/// Resolves the native libraries of the peer engines the benchmarks compare Cairn with. Bindings
/// import a short logical name ("lmdb"); this maps it to the exact soname Debian ships, so a
/// machine without the -dev package (no unversioned liblmdb.so symlink) still loads it, and a
/// machine without the library gets an error that says which package to install.
/// </summary>
public static class NativePeerLibraries
{
    private sealed record Peer(string Display, string FileName, string OverrideVariable, string InstallHint);

    // Adding a peer (RocksDB in the merger issue) is one line here.
    private static readonly Dictionary<string, Peer> s_peers = new(StringComparer.Ordinal)
    {
        ["lmdb"] = new("LMDB", "liblmdb.so.0", "CAIRN_BENCH_LMDB_LIBRARY",
            "install it with 'apt-get install -y liblmdb0' (run time only) or 'apt-get install -y liblmdb-dev'"),
    };

    private static readonly Dictionary<string, nint> s_loaded = new(StringComparer.Ordinal);
    private static readonly Lock s_gate = new();

    // The resolver must be in place before the first P/Invoke of any binding in this assembly, and
    // an assembly can have only one, so it is registered here for all peers at once.
#pragma warning disable CA2255
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void RegisterResolver() =>
        NativeLibrary.SetDllImportResolver(typeof(NativePeerLibraries).Assembly, Resolve);

    /// <summary>Loads a peer's library now, so a missing library fails at open with a clear message.</summary>
    public static nint Load(string name)
    {
        if (!s_peers.TryGetValue(name, out var peer))
            throw new ArgumentException($"'{name}' is not a known peer library", nameof(name));
        lock (s_gate)
        {
            if (s_loaded.TryGetValue(name, out var handle))
                return handle;
            handle = LoadOrThrow(peer);
            s_loaded[name] = handle;
            return handle;
        }
    }

    private static nint Resolve(string libraryName, Assembly assembly, DllImportSearchPath? searchPath) =>
        s_peers.ContainsKey(libraryName) ? Load(libraryName) : 0;

    private static nint LoadOrThrow(Peer peer)
    {
        var overridePath = Environment.GetEnvironmentVariable(peer.OverrideVariable);
        var target = string.IsNullOrWhiteSpace(overridePath) ? peer.FileName : overridePath;
        try
        {
            return NativeLibrary.Load(target);
        }
        catch (Exception e) when (e is DllNotFoundException or BadImageFormatException)
        {
            throw new DllNotFoundException(
                $"The {peer.Display} library '{target}' could not be loaded ({e.Message}). The benchmarks reach " +
                $"{peer.Display} through the system library: {peer.InstallHint}, or set {peer.OverrideVariable} " +
                "to the full path of another build.", e);
        }
    }

    /// <summary>
    /// The first shared library mapped into this process whose file name <paramref name="nameMatches"/>,
    /// from /proc/self/maps (Linux); null if none is (or elsewhere).
    /// </summary>
    public static string? MappedLibraryPath(Func<string, bool> nameMatches)
    {
        const string Maps = "/proc/self/maps";
        if (!File.Exists(Maps))
            return null;
        foreach (var line in File.ReadLines(Maps))
        {
            var slash = line.IndexOf('/', StringComparison.Ordinal);
            if (slash < 0)
                continue;
            var path = line[slash..];
            if (nameMatches(Path.GetFileName(path)))
                return path;
        }
        return null;
    }
}
