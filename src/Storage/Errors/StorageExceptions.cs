namespace Cairn;

/// <summary>A page failed validation: its checksum or its own page number does not match.</summary>
public sealed class PageCorruptionException : IOException
{
    public PageCorruptionException(string filePath, long pageNumber, ulong storedChecksum, ulong computedChecksum, string detail)
        : base($"Page {pageNumber} of '{filePath}' (offset {pageNumber * Paging.StorageConstants.PageSize}) is corrupt: {detail} " +
               $"(stored checksum 0x{storedChecksum:x16}, computed 0x{computedChecksum:x16})")
    {
        FilePath = filePath;
        PageNumber = pageNumber;
        StoredChecksum = storedChecksum;
        ComputedChecksum = computedChecksum;
    }

    public string FilePath { get; }

    public long PageNumber { get; }

    public ulong StoredChecksum { get; }

    public ulong ComputedChecksum { get; }
}

/// <summary>An on-disk structure other than a page (file header, tree metadata) is invalid.</summary>
public sealed class StorageFormatException(string filePath, long offset, string detail)
    : IOException($"'{filePath}' at offset {offset}: {detail}")
{
    public string FilePath { get; } = filePath;

    public long Offset { get; } = offset;
}

/// <summary>A named tree was asked for and does not exist.</summary>
public sealed class TreeNotFoundException(string treeName)
    : KeyNotFoundException($"There is no tree named '{treeName}' in this environment.")
{
    public string TreeName { get; } = treeName;
}

/// <summary>A key longer than <see cref="Paging.StorageConstants.MaxKeySize"/> bytes (or empty).</summary>
public sealed class InvalidKeyException(int length)
    : ArgumentException(length == 0
        ? "Keys must not be empty."
        : $"A key of {length} bytes exceeds the maximum of {Paging.StorageConstants.MaxKeySize} bytes.")
{
    public int Length { get; } = length;
}

/// <summary>A write was attempted through a read transaction.</summary>
public sealed class ReadOnlyTransactionException()
    : InvalidOperationException("This is a read transaction; writes need a write transaction (BeginWrite).");

/// <summary>The write transaction could not be had within the timeout because another one is open.</summary>
public sealed class WriteTransactionTimeoutException(TimeSpan timeout)
    : TimeoutException($"No write transaction within {timeout.TotalMilliseconds:F0} ms: another write transaction is still open.")
{
    public TimeSpan Timeout { get; } = timeout;
}

/// <summary>The environment is opened by another process (or another instance in this one).</summary>
public sealed class EnvironmentLockedException(string directory, Exception inner)
    : IOException($"The environment in '{directory}' is already open in another process or instance.", inner)
{
    public string Directory { get; } = directory;
}

/// <summary>The environment was disposed while transactions were still open.</summary>
public sealed class LiveTransactionsException(int readers, bool writer)
    : InvalidOperationException($"The environment cannot be disposed with open transactions ({readers} read, {(writer ? 1 : 0)} write); dispose them first.");
