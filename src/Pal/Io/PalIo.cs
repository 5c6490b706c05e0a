using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>Backends of the data-file writer (CAIRN_BACKEND_*).</summary>
public enum PalBackend
{
    /// <summary>As a mode: whatever the process-wide writer chose.</summary>
    Auto = 0,
    /// <summary>Linux io_uring: one worker thread submits vectored writes and syncs on one ring.</summary>
    IoUring = 1,
    /// <summary><c>pwritev</c> and <c>fdatasync</c> on the calling thread (Linux without io_uring, or forced).</summary>
    Pwritev = 2,
    /// <summary>Windows: <c>WriteFileGather</c> and <c>FlushFileBuffers</c> on the calling thread.</summary>
    Win32 = 3,
}

/// <summary>Options of the process-wide data-file writer; set before its first use.</summary>
/// <remarks>
/// A class, not a struct: its default (<see cref="LowPriority"/> on) is not the all-zero value, and a struct's
/// <c>default</c> or <c>new()</c> would silently turn it off (docs/decisions.md, issue 26 item 5).
/// </remarks>
public sealed record PalIoOptions
{
    /// <summary>Gives the data-file writes and syncs the lowest best-effort I/O priority (Linux IOPRIO_CLASS_BE level 7), so they yield to journal writes. Default: true.</summary>
    public bool LowPriority { get; init; } = true;

    /// <summary>Uses pwritev and fdatasync even where io_uring is available. Default: false.</summary>
    public bool ForcePwritev { get; init; }

    /// <summary>
    /// Entries of the io_uring submission ring (the kernel rounds up to a power of two). Default: 0, meaning 256.
    /// Unit: entries; 0 to 32768.
    /// </summary>
    public int RingEntries { get; init; }
}

/// <summary>The backend the writer runs on, and the OS error that ruled io_uring out (0 if none).</summary>
public readonly record struct PalBackendInfo(PalBackend Backend, int SetupError)
{
    /// <summary>The backend's name, followed by why io_uring is unavailable when it is (e.g. <c>Pwritev (io_uring unavailable: OS error 1, ...)</c>).</summary>
    public override string ToString() => SetupError == 0
        ? Backend.ToString()
        : $"{Backend} (io_uring unavailable: OS error {SetupError}, {PalErrors.DescribeOsError(SetupError)})";
}

/// <summary>The process-wide data-file writer: one io_uring worker thread, or pwritev where io_uring is unavailable.</summary>
public static class PalIo
{
    private const int LowPriorityFlag = 0x01;
    private const int ForcePwritevFlag = 0x02;

    /// <summary>Configures the writer; throws if it has already started.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    public static void Configure(PalIoOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        PalLibrary.EnsureInitialized();
        var native = new NativeIoOptions
        {
            Flags = (options.LowPriority ? LowPriorityFlag : 0) | (options.ForcePwritev ? ForcePwritevFlag : 0),
            RingEntries = options.RingEntries,
        };
        int status = NativeMethods.cairn_io_configure(native, out int osError);
        if (status == (int)PalStatus.InvalidArgument)
            throw new InvalidOperationException("The data-file writer has already started; configure it before its first use or after Shutdown().");
        PalErrors.ThrowIfFailed(status, osError, "configuring the data-file writer", path: null);
    }

    /// <summary>Starts the writer if needed and reports the backend it chose.</summary>
    public static PalBackendInfo GetBackend()
    {
        PalLibrary.EnsureInitialized();
        int status = NativeMethods.cairn_io_backend(out int backend, out int setupError, out int osError);
        PalErrors.ThrowIfFailed(status, osError, "starting the data-file writer", path: null);
        return new PalBackendInfo((PalBackend)backend, setupError);
    }

    /// <summary>Stops the worker thread; the next use starts it again with the current configuration.</summary>
    public static void Shutdown()
    {
        PalLibrary.EnsureInitialized();
        int status = NativeMethods.cairn_io_shutdown(out int osError);
        PalErrors.ThrowIfFailed(status, osError, "stopping the data-file writer", path: null);
    }
}
