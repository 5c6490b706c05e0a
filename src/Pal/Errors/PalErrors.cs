using System.Diagnostics.CodeAnalysis;
using System.Text;
using Cairn.Pal.Interop;

namespace Cairn.Pal;

/// <summary>Turns native status codes into typed exceptions with a readable message.</summary>
public static class PalErrors
{
    /// <summary>Throws the exception for <paramref name="status"/> unless it is <see cref="PalStatus.Ok"/>.</summary>
    public static void ThrowIfFailed(int status, int osError, string operation, string? path, long? offset = null)
    {
        if (status != (int)PalStatus.Ok)
            Throw(status, osError, operation, path, offset);
    }

    /// <summary>
    /// Throws the exception <see cref="Create"/> makes for <paramref name="status"/> (a <see cref="PalStatus"/> value
    /// as the native layer returned it); never returns.
    /// </summary>
    /// <param name="status">The native status (<c>CAIRN_E_*</c>).</param>
    /// <param name="osError">errno on POSIX, <c>GetLastError()</c> on Windows; 0 if the OS was not involved.</param>
    /// <param name="operation">What was being done, for the message (e.g. "writing the journal").</param>
    /// <param name="path">The file concerned, or null.</param>
    /// <param name="offset">The byte offset in the file where one applies, or null.</param>
    /// <exception cref="PalIOException">Always: the subclass that matches <paramref name="status"/>.</exception>
    [DoesNotReturn]
    public static void Throw(int status, int osError, string operation, string? path, long? offset = null)
        => throw Create((PalStatus)status, osError, operation, path, offset);

    /// <summary>
    /// Makes the exception for a failed native call: <see cref="DiskFullException"/>, <see cref="PalFileNotFoundException"/>,
    /// <see cref="NativeOutOfMemoryException"/>, <see cref="DeviceIOException"/>, <see cref="FileLockedException"/>,
    /// <see cref="PalAccessDeniedException"/>, <see cref="PalCrossDeviceException"/>, <see cref="PalTooManyLinksException"/>,
    /// or a plain <see cref="PalIOException"/> for any other status. The message names the operation, the file, the
    /// offset and the OS error with the OS's own text.
    /// </summary>
    /// <param name="status">The classified status; <see cref="PalStatus.Ok"/> is not a failure and should not be passed.</param>
    /// <param name="osError">errno on POSIX, <c>GetLastError()</c> on Windows; 0 if the OS was not involved.</param>
    /// <param name="operation">What was being done, for the message.</param>
    /// <param name="path">The file concerned, or null.</param>
    /// <param name="offset">The byte offset in the file where one applies, or null.</param>
    public static PalIOException Create(PalStatus status, int osError, string operation, string? path, long? offset = null)
    {
        var message = FormatMessage(status, osError, operation, path, offset);
        return status switch
        {
            PalStatus.DiskFull => new DiskFullException(message, status, osError, operation, path, offset),
            PalStatus.NotFound => new PalFileNotFoundException(message, status, osError, operation, path, offset),
            PalStatus.OutOfMemory => new NativeOutOfMemoryException(message, status, osError, operation, path, offset),
            PalStatus.IOError => new DeviceIOException(message, status, osError, operation, path, offset),
            PalStatus.Locked => new FileLockedException(message, status, osError, operation, path, offset),
            PalStatus.AccessDenied => new PalAccessDeniedException(message, status, osError, operation, path, offset),
            PalStatus.CrossDevice => new PalCrossDeviceException(message, status, osError, operation, path, offset),
            PalStatus.TooManyLinks => new PalTooManyLinksException(message, status, osError, operation, path, offset),
            _ => new PalIOException(message, status, osError, operation, path, offset),
        };
    }

    /// <summary>The OS's own text for an error code (strerror / FormatMessage).</summary>
    public static unsafe string DescribeOsError(int osError)
    {
        const int capacity = 256;
        byte* buffer = stackalloc byte[capacity];
        if (NativeMethods.cairn_error_string(osError, buffer, capacity, out int written, out _) != (int)PalStatus.Ok)
            return $"OS error {osError}";
        return Encoding.UTF8.GetString(buffer, written);
    }

    private static string FormatMessage(PalStatus status, int osError, string operation, string? path, long? offset)
    {
        var text = new StringBuilder();
        text.Append(Describe(status)).Append(" during ").Append(operation);
        if (path is not null)
            text.Append(" on '").Append(path).Append('\'');
        if (offset is not null)
            text.Append(" at offset ").Append(offset.Value);
        if (osError != 0)
            text.Append(" (OS error ").Append(osError).Append(": ").Append(DescribeOsError(osError)).Append(')');
        return text.ToString();
    }

    private static string Describe(PalStatus status) => status switch
    {
        PalStatus.DiskFull => "Disk full",
        PalStatus.NotFound => "Not found",
        PalStatus.OutOfMemory => "Out of memory",
        PalStatus.IOError => "I/O error",
        PalStatus.AccessDenied => "Access denied",
        PalStatus.InvalidArgument => "Invalid argument",
        PalStatus.Locked => "Locked by another holder",
        PalStatus.AlreadyExists => "Already exists",
        PalStatus.Unsupported => "Not supported",
        PalStatus.EndOfFile => "Unexpected end of file",
        PalStatus.CrossDevice => "Not on the same file system",
        PalStatus.TooManyLinks => "Too many links",
        _ => "OS error",
    };
}
