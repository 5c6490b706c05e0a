using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>
/// Loads cairnpal once per process and checks that its ABI is the one these bindings were written
/// for; every entry point that can be the first native call goes through <see cref="EnsureInitialized"/>.
/// </summary>
public static class PalLibrary
{
    /// <summary>The CAIRN_PAL_ABI_VERSION these bindings match.</summary>
    public const int ExpectedAbiVersion = 7;

    private static readonly Lock s_gate = new();
    private static nint s_handle;
    private static volatile bool s_initialized;

    // Registering a DllImport resolver before any P/Invoke can run is the case module initializers
    // exist for in libraries: no caller has to remember to do it.
#pragma warning disable CA2255
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void RegisterResolver()
    {
        NativeLibrary.SetDllImportResolver(typeof(PalLibrary).Assembly, Resolve);
    }

    /// <summary>Loads the library and verifies its ABI version; cheap after the first call.</summary>
    public static void EnsureInitialized()
    {
        if (s_initialized)
            return;
        InitializeSlow();
    }

    /// <summary>The ABI version the loaded library reports.</summary>
    public static int LoadedAbiVersion
    {
        get
        {
            EnsureInitialized();
            return QueryAbiVersion();
        }
    }

    /// <summary>Throws <see cref="PalAbiMismatchException"/> unless <paramref name="reported"/> is the expected version.</summary>
    public static void CheckAbiVersion(int reported)
    {
        if (reported != ExpectedAbiVersion)
            throw new PalAbiMismatchException(ExpectedAbiVersion, reported);
    }

    private static void InitializeSlow()
    {
        lock (s_gate)
        {
            if (s_initialized)
                return;
            if (s_handle == 0)
                s_handle = NativeLibraryLocator.ForCurrentProcess().Load();
            CheckAbiVersion(QueryAbiVersion());
            s_initialized = true;
        }
    }

    private static int QueryAbiVersion()
    {
        int status = NativeMethods.cairn_get_abi_version(out int version, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "reading the native ABI version", path: null);
        return version;
    }

    private static nint Resolve(string libraryName, Assembly assembly, DllImportSearchPath? searchPath)
    {
        if (libraryName != NativeMethods.LibraryName)
            return 0;
        lock (s_gate)
        {
            if (s_handle == 0)
                s_handle = NativeLibraryLocator.ForCurrentProcess().Load();
            return s_handle;
        }
    }
}
