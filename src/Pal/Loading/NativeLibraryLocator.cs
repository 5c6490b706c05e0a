using System.Runtime.InteropServices;
using System.Text;

namespace Cairn.Pal;

/// <summary>
/// Finds and loads cairnpal: first an explicit path from <c>CAIRN_PAL_LIBRARY</c>, then
/// <c>runtimes/{rid}/native/</c> and the directory itself, beside the assembly and beside the
/// application, then the OS's own search. When nothing loads, the exception lists every place tried
/// and why each failed, because "DllNotFoundException: cairnpal" alone tells nobody what to fix.
/// </summary>
public sealed class NativeLibraryLocator
{
    public const string OverrideVariable = "CAIRN_PAL_LIBRARY";

    private readonly string? _overridePath;
    private readonly string _fileName;
    private readonly string _libraryName;
    private readonly bool _searchOsPaths;

    /// <param name="searchOsPaths">Whether to try the OS's own search (LD_LIBRARY_PATH, PATH) last, when no override is given.</param>
    public NativeLibraryLocator(IEnumerable<string> baseDirectories, IEnumerable<string> runtimeIdentifiers,
        string libraryName, string fileName, string? overridePath, bool searchOsPaths = true)
    {
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

    public IReadOnlyList<string> CandidatePaths { get; }

    /// <summary>Loads the first candidate that loads, or throws listing every attempt.</summary>
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

        throw new NativeLibraryNotFoundException(BuildMessage(attempts), attempts);
    }

    private string BuildMessage(List<string> attempts)
    {
        var message = new StringBuilder();
        message.Append("Cairn's native library ").Append(_fileName).Append(" could not be loaded. Tried:");
        foreach (var attempt in attempts)
            message.Append(Environment.NewLine).Append("  ").Append(attempt);
        message.Append(Environment.NewLine)
            .Append("Build it with 'dotnet build' (which runs CMake), or set ")
            .Append(OverrideVariable).Append(" to its full path.");
        return message.ToString();
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
        string os = OperatingSystem.IsWindows() ? "win" : OperatingSystem.IsMacOS() ? "osx" : "linux";
        string arch = RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant();
        yield return $"{os}-{arch}";
        yield return RuntimeInformation.RuntimeIdentifier;
    }
}

/// <summary>cairnpal could not be loaded from any of <see cref="AttemptedPaths"/>.</summary>
public sealed class NativeLibraryNotFoundException(string message, IReadOnlyList<string> attempts) : DllNotFoundException(message)
{
    public IReadOnlyList<string> AttemptedPaths { get; } = attempts;
}
