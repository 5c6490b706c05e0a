using System.Runtime.InteropServices;
using System.Text;

namespace Cairn.Pal;

/// <summary>
/// Finds and loads cairnpal: first an explicit path from <c>CAIRN_PAL_LIBRARY</c>, then
/// <c>runtimes/{rid}/native/</c> and the directory itself, beside the assembly and beside the
/// application, then the OS's own search. When nothing loads, the exception lists every place tried
/// and why each failed, because "DllNotFoundException: cairnpal" alone tells nobody what to fix; on a
/// platform the package carries no library for (<see cref="SupportedPlatforms"/>), it says so first,
/// naming the platform, and how to build and point to a library of one's own.
/// </summary>
public sealed class NativeLibraryLocator
{
    /// <summary>
    /// The environment variable that names the native library's full path explicitly (tried first, and alone:
    /// the OS search is then skipped). For platforms the package has no library for, or a library built by hand.
    /// </summary>
    public const string OverrideVariable = "CAIRN_PAL_LIBRARY";

    /// <summary>The platforms (runtime identifiers) the Cairn package carries a native library for.</summary>
    public static IReadOnlyList<string> SupportedPlatforms { get; } = ["linux-x64", "linux-arm64", "win-x64"];

    private readonly string? _overridePath;
    private readonly string _fileName;
    private readonly string _libraryName;
    private readonly bool _searchOsPaths;

    /// <summary>A locator that tries, in order: <paramref name="overridePath"/>, then for each base directory its
    /// <c>runtimes/{rid}/native/</c> folders and the directory itself, then (optionally) the OS's search.</summary>
    /// <param name="baseDirectories">Directories to look in (empty entries are skipped, duplicates tried once).</param>
    /// <param name="runtimeIdentifiers">The runtime identifiers whose <c>runtimes/{rid}/native/</c> folders to try, most specific first.</param>
    /// <param name="libraryName">The name P/Invoke declarations use (<c>cairnpal</c>), for the OS's search.</param>
    /// <param name="fileName">The library's file name on this OS (<c>libcairnpal.so</c>, <c>cairnpal.dll</c>).</param>
    /// <param name="overridePath">An explicit path to try first (from <see cref="OverrideVariable"/>); null or blank for none.</param>
    /// <param name="searchOsPaths">Whether to try the OS's own search (LD_LIBRARY_PATH, PATH) last, when no override is given.</param>
    /// <param name="platform">The running platform's runtime identifier, for the error message (e.g. <c>osx-arm64</c>); null: <see cref="CurrentPlatform"/>.</param>
    public NativeLibraryLocator(IEnumerable<string> baseDirectories, IEnumerable<string> runtimeIdentifiers,
        string libraryName, string fileName, string? overridePath, bool searchOsPaths = true, string? platform = null)
    {
        Platform = platform ?? CurrentPlatform();
        _libraryName = libraryName;
        _searchOsPaths = searchOsPaths;
        _fileName = fileName;
        _overridePath = string.IsNullOrWhiteSpace(overridePath) ? null : overridePath;

        var candidates = new List<string>();
        if (_overridePath is not null)
            candidates.Add(Path.GetFullPath(_overridePath));
        foreach (var directory in baseDirectories.Where(d => !string.IsNullOrEmpty(d)).Select(Path.GetFullPath).Distinct())
        {
            foreach (var rid in runtimeIdentifiers.Distinct())
                candidates.Add(Path.Combine(directory, "runtimes", rid, "native", fileName));
            candidates.Add(Path.Combine(directory, fileName));
        }
        CandidatePaths = candidates.Distinct().ToArray();
    }

    /// <summary>The locator for the running process and this assembly.</summary>
    public static NativeLibraryLocator ForCurrentProcess()
    {
        var assemblyDirectory = Path.GetDirectoryName(typeof(NativeLibraryLocator).Assembly.Location);
        return new NativeLibraryLocator(
            [assemblyDirectory ?? string.Empty, AppContext.BaseDirectory],
            CurrentRuntimeIdentifiers(),
            Interop.NativeMethods.LibraryName,
            PlatformFileName(Interop.NativeMethods.LibraryName),
            Environment.GetEnvironmentVariable(OverrideVariable));
    }

    /// <summary>The full paths this locator tries, in order (before the OS's search, if that is enabled).</summary>
    public IReadOnlyList<string> CandidatePaths { get; }

    /// <summary>The runtime identifier of the platform the library is sought for (e.g. <c>linux-x64</c>, <c>linux-musl-x64</c>, <c>osx-arm64</c>).</summary>
    public string Platform { get; }

    /// <summary>Whether the Cairn package carries a native library for <see cref="Platform"/> (<see cref="SupportedPlatforms"/>).</summary>
    public bool IsSupportedPlatform => SupportedPlatforms.Contains(Platform, StringComparer.Ordinal);

    /// <summary>Loads the first candidate that loads, or throws listing every attempt.</summary>
    /// <returns>The OS handle of the loaded library.</returns>
    /// <exception cref="NativeLibraryNotFoundException">No candidate loaded: the message names the platform, every path tried and why it failed, and what to do.</exception>
    public nint Load()
    {
        var attempts = new List<string>();
        foreach (var path in CandidatePaths)
        {
            if (!File.Exists(path))
            {
                attempts.Add($"{path}: not found");
                continue;
            }
            try
            {
                return NativeLibrary.Load(path);
            }
            catch (Exception e) when (e is DllNotFoundException or BadImageFormatException)
            {
                attempts.Add($"{path}: exists but failed to load: {e.Message}");
            }
        }

        if (_searchOsPaths && _overridePath is null)
        {
            if (NativeLibrary.TryLoad(_libraryName, typeof(NativeLibraryLocator).Assembly, DllImportSearchPath.SafeDirectories, out var handle))
                return handle;
            attempts.Add($"'{_libraryName}' through the OS search path: not loaded");
        }

        throw new NativeLibraryNotFoundException(BuildMessage(attempts), attempts, Platform);
    }

    private string BuildMessage(List<string> attempts)
    {
        var message = new StringBuilder();
        if (!IsSupportedPlatform)
        {
            message.Append("Cairn's native library (").Append(_libraryName).Append(") is not available for this platform, ")
                .Append(Platform).Append(": the Cairn package carries it for ").Append(string.Join(", ", SupportedPlatforms))
                .Append(" only. To run on ").Append(Platform).Append(", build native/ from Cairn's source repository with CMake")
                .Append(" for this platform (docs/pal.md) and set the environment variable ").Append(OverrideVariable)
                .Append(" to the built library's full path. Tried:");
        }
        else
        {
            message.Append("Cairn's native library ").Append(_fileName).Append(" could not be loaded on ").Append(Platform)
                .Append(". Tried:");
        }
        foreach (var attempt in attempts)
            message.Append(Environment.NewLine).Append("  ").Append(attempt);
        if (IsSupportedPlatform)
        {
            message.Append(Environment.NewLine)
                .Append("The Cairn package carries it as runtimes/").Append(Platform).Append("/native/").Append(_fileName)
                .Append(", which a build copies under the application's runtimes/ folder and a publish for a runtime beside")
                .Append(" the application; check that it is there.");
            if (Platform.StartsWith("linux-", StringComparison.Ordinal))
                message.Append(" It needs glibc 2.34 or later.");
            message.Append(" In Cairn's own repository 'dotnet build' builds it (through CMake). Or set ")
                .Append(OverrideVariable).Append(" to its full path.");
        }
        return message.ToString();
    }

    /// <summary>
    /// The runtime identifier of the running process's platform: <c>win-</c>, <c>osx-</c>, <c>linux-</c> or
    /// <c>linux-musl-</c> (Alpine and other musl distributions) followed by the process architecture
    /// (<c>x64</c>, <c>arm64</c>, <c>x86</c>, <c>arm</c>, ...); another OS gets the runtime's own identifier.
    /// </summary>
    public static string CurrentPlatform()
    {
        string arch = RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
        if (OperatingSystem.IsWindows())
            return $"win-{arch}";
        if (OperatingSystem.IsMacOS())
            return $"osx-{arch}";
        if (OperatingSystem.IsLinux())
            return RuntimeInformation.RuntimeIdentifier.Contains("musl", StringComparison.Ordinal) ? $"linux-musl-{arch}" : $"linux-{arch}";
        return RuntimeInformation.RuntimeIdentifier;
    }

    internal static string PlatformFileName(string libraryName)
    {
        if (OperatingSystem.IsWindows())
            return libraryName + ".dll";
        if (OperatingSystem.IsMacOS())
            return "lib" + libraryName + ".dylib";
        return "lib" + libraryName + ".so";
    }

    internal static IEnumerable<string> CurrentRuntimeIdentifiers()
    {
        yield return CurrentPlatform();
        string os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
        string arch = RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
        yield return $"{os}-{arch}";
        yield return RuntimeInformation.RuntimeIdentifier;
    }
}
