namespace Cairn;

/// <summary>A page failed validation: its checksum or its own page number does not match.</summary>
public sealed class PageCorruptionException : IOException
{
    /// <summary>A damaged page; the message gives the file, page number, byte offset, detail and both checksums.</summary>
    /// <param name="filePath">The data file.</param>
    /// <param name="pageNumber">The page's number (its byte offset is the number times 8 KiB).</param>
    /// <param name="storedChecksum">The checksum written in the page's header.</param>
    /// <param name="computedChecksum">The checksum of the page's bytes as read.</param>
    /// <param name="detail">What failed (checksum, page number), in words.</param>
    public PageCorruptionException(string filePath, long pageNumber, ulong storedChecksum, ulong computedChecksum, string detail)
        : base($"Page {pageNumber} of '{filePath}' (offset {pageNumber * Paging.StorageConstants.PageSize}) is corrupt: {detail} " +
               $"(stored checksum 0x{storedChecksum:x16}, computed 0x{computedChecksum:x16})")
    {
        FilePath = filePath;
        PageNumber = pageNumber;
        StoredChecksum = storedChecksum;
        ComputedChecksum = computedChecksum;
    }

    /// <summary>The data file the page was read from.</summary>
    public string FilePath { get; }

    /// <summary>The page's number; its byte offset in the file is this times 8 KiB.</summary>
    public long PageNumber { get; }

    /// <summary>The checksum stored in the page's header (XXH3, 64-bit).</summary>
    public ulong StoredChecksum { get; }

    /// <summary>The checksum computed over the page's bytes as read.</summary>
    public ulong ComputedChecksum { get; }
}

/// <summary>An on-disk structure other than a page (file header, tree metadata) is invalid.</summary>
public sealed class StorageFormatException(string filePath, long offset, string detail)
    : IOException($"'{filePath}' at offset {offset}: {detail}")
{
    /// <summary>The file holding the invalid structure.</summary>
    public string FilePath { get; } = filePath;

    /// <summary>The structure's byte offset in the file.</summary>
    public long Offset { get; } = offset;
}

/// <summary>A named tree was asked for and does not exist.</summary>
public sealed class TreeNotFoundException(string treeName)
    : KeyNotFoundException($"There is no tree named '{treeName}' in this environment.")
{
    /// <summary>The name that was asked for.</summary>
    public string TreeName { get; } = treeName;
}

/// <summary>A key longer than <see cref="Paging.StorageConstants.MaxKeySize"/> bytes (or empty).</summary>
public sealed class InvalidKeyException(int length)
    : ArgumentException(length == 0
        ? "Keys must not be empty."
        : $"A key of {length} bytes exceeds the maximum of {Paging.StorageConstants.MaxKeySize} bytes.")
{
    /// <summary>The refused key's length in bytes (0 for an empty key).</summary>
    public int Length { get; } = length;
}

/// <summary>A write was attempted through a read transaction.</summary>
public sealed class ReadOnlyTransactionException()
    : InvalidOperationException("This is a read transaction; writes need a write transaction (BeginWrite).");

/// <summary>The write transaction could not be had within the timeout because another one is open.</summary>
public sealed class WriteTransactionTimeoutException(TimeSpan timeout)
    : TimeoutException($"No write transaction within {timeout.TotalMilliseconds:F0} ms: another write transaction is still open.")
{
    /// <summary>How long the caller waited for the write lock.</summary>
    public TimeSpan Timeout { get; } = timeout;
}

/// <summary>The environment is opened by another process (or another instance in this one).</summary>
public sealed class EnvironmentLockedException(string directory, Exception inner)
    : IOException($"The environment in '{directory}' is already open in another process or instance.", inner)
{
    /// <summary>The environment's directory.</summary>
    public string Directory { get; } = directory;
}

/// <summary>The environment was disposed while a backup of it was running (it would fail the copy); let the backup end first, or cancel it.</summary>
public sealed class BackupRunningException(int backups)
    : InvalidOperationException($"The environment cannot be disposed while {backups} backup(s) of it run; wait for them or cancel them first.")
{
    /// <summary>How many backups were running.</summary>
    public int Backups { get; } = backups;
}

/// <summary>The environment was disposed while transactions were still open.</summary>
public sealed class LiveTransactionsException(int readers, bool writer)
    : InvalidOperationException($"The environment cannot be disposed with open transactions ({readers} read, {(writer ? 1 : 0)} write); dispose them first.");
