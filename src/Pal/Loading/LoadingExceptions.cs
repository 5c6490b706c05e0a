using Cairn.Pal;

// In namespace Cairn with every other exception a caller of the engine may catch (docs/decisions.md, issue 26
// item 5), though the PAL throws them.
namespace Cairn;

/// <summary>
/// cairnpal could not be loaded from any of <see cref="AttemptedPaths"/>: the package has no library for
/// <see cref="Platform"/>, or the library is missing from the application's output, or it failed to load.
/// </summary>
/// <param name="message">The full message: the platform, every attempt, and what to do.</param>
/// <param name="attempts">Each place tried, with why it failed.</param>
/// <param name="platform">The runtime identifier of the platform the library was sought for.</param>
public sealed class NativeLibraryNotFoundException(string message, IReadOnlyList<string> attempts, string platform) : DllNotFoundException(message)
{
    /// <summary>Each place tried, in order, as "path: why it failed".</summary>
    public IReadOnlyList<string> AttemptedPaths { get; } = attempts;

    /// <summary>The runtime identifier of the platform the library was sought for (e.g. <c>osx-arm64</c>).</summary>
    public string Platform { get; } = platform;
}

/// <summary>The loaded cairnpal was built for a different ABI than these bindings.</summary>
public sealed class PalAbiMismatchException(int expected, int actual) : InvalidOperationException(
    $"cairnpal ABI version {actual} does not match the version {expected} these bindings require; " +
    "rebuild the native library from the same source tree (dotnet build does this).")
{
    /// <summary>The ABI version these managed bindings were written for (<see cref="PalLibrary.ExpectedAbiVersion"/>).</summary>
    public int ExpectedVersion { get; } = expected;

    /// <summary>The ABI version the loaded native library reports.</summary>
    public int ActualVersion { get; } = actual;
}
