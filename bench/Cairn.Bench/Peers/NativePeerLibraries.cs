using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using LightningDB;

namespace Cairn.Bench.Peers;

/// <summary>
/// Resolves the native libraries of peer engines whose packages may not carry a build that loads
/// here. LightningDB imports "lmdb"; its package's own <c>liblmdb.so</c> (LMDB 1.0.1) needs glibc 2.38
/// and fails on Debian 12, so this tries the package's build first (what a .NET user gets where it
/// loads) and falls back to the exact soname Debian ships (<c>liblmdb.so.0</c>, LMDB 0.9.24), so a
/// machine without the -dev package (no unversioned liblmdb.so symlink) still loads it, and a machine
/// without either gets an error that says which package to install.
/// </summary>
public static class NativePeerLibraries
{
    /// <summary>The name LightningDB's imports use.</summary>
    public const string Lmdb = "lmdb";

    private sealed record Peer(string Display, string FileName, string OverrideVariable, string InstallHint, Assembly Binding);

    // Adding a peer is one line here (RocksDB and SQLite load their packages' own builds unaided).
    private static readonly Dictionary<string, Peer> s_peers = new(StringComparer.Ordinal)
    {
        [Lmdb] = new("LMDB", "liblmdb.so.0", "CAIRN_BENCH_LMDB_LIBRARY",
            "install it with 'apt-get install -y liblmdb0' (run time only) or 'apt-get install -y liblmdb-dev'",
            typeof(LightningEnvironment).Assembly),
    };

    private static readonly Dictionary<string, nint> s_loaded = new(StringComparer.Ordinal);
    private static readonly Lock s_gate = new();

    // The resolver must be in place before the first P/Invoke of the binding, and an assembly can have
    // only one, so it is registered for every peer's binding assembly when this assembly loads.
#pragma warning disable CA2255
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void RegisterResolver()
    {
        foreach (var (name, peer) in s_peers)
            NativeLibrary.SetDllImportResolver(peer.Binding, (library, assembly, searchPath) =>
                library == name ? Load(name, searchPath) : 0);
    }

    /// <summary>Loads a peer's library now, so a missing library fails at open with a clear message.</summary>
    public static nint Load(string name, DllImportSearchPath? searchPath = null)
    {
        if (!s_peers.TryGetValue(name, out var peer))
            throw new ArgumentException($"'{name}' is not a known peer library", nameof(name));
        lock (s_gate)
        {
            if (s_loaded.TryGetValue(name, out var handle))
                return handle;
            handle = LoadOrThrow(name, peer, searchPath);
            s_loaded[name] = handle;
            return handle;
        }
    }

    // An override wins; then the package's own build (found through the app's deps.json, as the
    // runtime would); then the system's soname.
    private static nint LoadOrThrow(string name, Peer peer, DllImportSearchPath? searchPath)
    {
        var overridePath = Environment.GetEnvironmentVariable(peer.OverrideVariable);
        if (string.IsNullOrWhiteSpace(overridePath) && NativeLibrary.TryLoad(name, peer.Binding, searchPath, out var packaged))
            return packaged;
        var target = string.IsNullOrWhiteSpace(overridePath) ? peer.FileName : overridePath;
        try
        {
            return NativeLibrary.Load(target);
        }
        catch (Exception e) when (e is DllNotFoundException or BadImageFormatException)
        {
            throw new DllNotFoundException(
                $"The {peer.Display} library '{target}' could not be loaded ({e.Message}), nor the build in {peer.Binding.GetName().Name}'s " +
                $"package. Where the package's build does not load, the benchmarks reach {peer.Display} through the system library: " +
                $"{peer.InstallHint}, or set {peer.OverrideVariable} to the full path of another build.", e);
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
