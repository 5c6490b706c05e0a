using Cairn.Tests.Support;

namespace Cairn.Tests.Merger;

/// <summary>What the merger tests' operations carry: a key and value to put, as state (no closure).</summary>
internal sealed record PutRequest(byte[] Key, byte[] Value);

internal static class MergerTestSupport
{
    public const string TreeName = "m";

    public static StorageOptions Options(string path) => new(path)
    {
        MaxFlushDelay = TimeSpan.FromMilliseconds(50),
        SyncInterval = TimeSpan.FromMilliseconds(200),
    };

    /// <summary>Puts the request's key and returns the id the merged transaction will commit as.</summary>
    public static long Put(WriteTransaction tx, PutRequest request)
    {
        tx.CreateTree(TreeName).Put(request.Key, request.Value);
        return tx.TransactionId + 1;
    }

    /// <summary>
    /// An operation that holds the merger's thread until <paramref name="release"/> is set: whatever is
    /// queued meanwhile stays queued, so tests can fill the queue, cancel, or dispose deterministically.
    /// </summary>
    public static (Task Running, ValueTask Completion) Block(StorageEnvironment env, ManualResetEventSlim release)
    {
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var completion = env.WriteAsync((started, release), static (tx, s) =>
        {
            s.started.TrySetResult();
            s.release.Wait(TimeSpan.FromSeconds(30));
            tx.CreateTree(TreeName).Put(Bytes.Utf8("blocker"), Bytes.Utf8("done"));
        });
        return (started.Task, completion);
    }

    public static byte[]? Read(StorageEnvironment env, byte[] key)
    {
        using var tx = env.BeginRead();
        return tx.TryOpenTree(TreeName, out var tree) ? tree.Get(key) : null;
    }

    public static long Count(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        return tx.TryOpenTree(TreeName, out var tree) ? tree.Count : 0;
    }
}
