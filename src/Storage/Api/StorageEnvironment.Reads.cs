using System.Collections.Concurrent;
using Cairn.Transactions;

namespace Cairn;

public sealed partial class StorageEnvironment : IReadHost
{
    // One handle per tree name, so a caller that asks again gets the same one (and pooled read contexts, which
    // keep a tree object per handle, stay bounded by the number of names).
    private readonly ConcurrentDictionary<string, TreeHandle> _treeHandles = new(StringComparer.Ordinal);
    private int _lastTreeHandleId;

    /// <summary>
    /// Starts a read transaction on the latest committed state, as <see cref="BeginRead"/> does, as a struct:
    /// it allocates nothing. It never blocks and is never blocked.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The environment has been disposed.</exception>
    public ReadSnapshot BeginReadSnapshot() => new(this, RentReadContext());

    /// <summary>
    /// The handle of the tree named <paramref name="name"/>, for opening it in any transaction without a lookup by
    /// name (<see cref="TreeHandle"/>). The tree need not exist yet. The same name always gives the same handle.
    /// </summary>
    /// <exception cref="ArgumentException"><paramref name="name"/> is null, empty, or longer than 512 UTF-8 bytes.</exception>
    /// <exception cref="ObjectDisposedException">The environment has been disposed.</exception>
    public TreeHandle GetTreeHandle(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (System.Text.Encoding.UTF8.GetByteCount(name) > Trees.TreeDirectory.MaxNameBytes)
            throw new ArgumentException($"Tree names are at most {Trees.TreeDirectory.MaxNameBytes} UTF-8 bytes.", nameof(name));
        ThrowIfDisposed();
        if (_treeHandles.TryGetValue(name, out var handle))
            return handle;
        return _treeHandles.GetOrAdd(name, static (name, env) => new TreeHandle(env, Interlocked.Increment(ref env._lastTreeHandleId), name), this);
    }

    /// <summary>A pooled read context (or a new one) pinned to the current state, in a use of its own.</summary>
    private ReadContext RentReadContext()
    {
        ThrowIfDisposed();
        return _readContexts.RentPinned(_states, _dataFile, _scratch);
    }

    string IReadHost.DataFilePath => DataFilePath;

    void IReadHost.EndRead(ReadContext context) => EndRead(context);
}
