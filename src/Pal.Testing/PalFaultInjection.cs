using Cairn.Pal.Interop;

namespace Cairn.Pal.Testing;

/// <summary>Kinds of fault the native layer can inject (CAIRN_FAULT_*).</summary>
public enum PalFaultKind
{
    /// <summary>No fault: disarms any armed fault.</summary>
    None = 0,
    /// <summary>The n-th write syscall fails with the given OS error.</summary>
    WriteError = 1,
    /// <summary>Every write syscall writes at most <c>limit</c> bytes.</summary>
    ShortWrite = 2,
    /// <summary>The n-th write syscall returns 0 bytes (reported as disk full).</summary>
    ZeroWrite = 3,
    /// <summary>The n-th data sync fails with the given OS error.</summary>
    SyncError = 4,
    /// <summary>io_uring setup fails with the given OS error.</summary>
    UringSetup = 5,
    /// <summary>The n-th allocation grows the file by at most <c>limit</c> bytes past its end, then fails with the given OS error.</summary>
    AllocateError = 6,
    /// <summary>The n-th hard link whose new link path matches the filter fails with the given OS error, creating nothing.</summary>
    LinkError = 7,
    /// <summary>The n-th positioned read (<c>PalFile.Read</c>) of a file matching the filter fails with the given OS error, reading nothing.</summary>
    ReadError = 8,
}

/// <summary>
/// Test-only fault injection in the native layer. Faults are process-wide: tests that use them must
/// not run in parallel with other native I/O in the same process (filter by path to limit the blast).
/// </summary>
public static class PalFaultInjection
{
    /// <summary>
    /// Arms one fault, replacing any armed one. A write, zero-write, sync, allocate, link or read fault fires once and then
    /// disarms itself; a short-write fault stays until <see cref="Disarm"/>. For tests only: it changes the behaviour of
    /// native I/O calls anywhere in the process.
    /// </summary>
    /// <param name="kind">Which fault.</param>
    /// <param name="after">How many matching calls succeed before the one that fails (0: the next one fails).</param>
    /// <param name="limit">For <see cref="PalFaultKind.ShortWrite"/> and <see cref="PalFaultKind.AllocateError"/>: the byte limit.</param>
    /// <param name="osError">The OS error the failing call reports (e.g. 5 for EIO, 28 for ENOSPC on Linux).</param>
    /// <param name="pathFilter">Only calls on a file whose path contains this string count (for a link: the new link's path); null: every file.</param>
    public static void Arm(PalFaultKind kind, long after = 0, long limit = 0, int osError = 0, string? pathFilter = null)
    {
        PalLibrary.EnsureInitialized();
        int status = NativeMethods.cairn_test_set_fault((int)kind, after, limit, osError, pathFilter, out int error);
        PalErrors.ThrowIfFailed(status, error, "arming a fault", pathFilter);
    }

    /// <summary>Disarms any armed fault.</summary>
    public static void Disarm() => Arm(PalFaultKind.None);

    /// <summary>How many write syscalls the native layer has issued in this process.</summary>
    public static long WriteCalls
    {
        get
        {
            PalLibrary.EnsureInitialized();
            NativeMethods.cairn_test_write_calls(out long count, out _);
            return count;
        }
    }
}
