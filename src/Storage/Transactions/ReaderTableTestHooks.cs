namespace Cairn.Transactions;

/// <summary>
/// Test hooks of a <see cref="ReaderTable"/>: where a test holds the thread that counts open read transactions, so
/// another party's slot can change between the count and what the counter does with it.
/// </summary>
internal sealed class ReaderTableTestHooks
{
    /// <summary>On the counting thread, after the scan of the slots and before the count is returned.</summary>
    public Action? AfterCounted { get; set; }
}
