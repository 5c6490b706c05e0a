using System.Buffers.Binary;
using System.Diagnostics;

namespace Cairn.Demo;

internal sealed record EngineDemoResult(int Keys, double FillMilliseconds, double ReadMilliseconds, double ReopenMilliseconds, VerificationReport Verification);

/// <summary>
/// The engine's part of the main job: fill a tree in batches, read every key back in its own read
/// transaction, close, reopen, check the data and verify every page.
/// </summary>
internal static class EngineDemo
{
    public static EngineDemoResult Run(string directory, int keys)
    {
        var path = Path.Combine(directory, "engine");
        if (Directory.Exists(path))
            Directory.Delete(path, recursive: true);
        Span<byte> key = stackalloc byte[16];
        Span<byte> value = stackalloc byte[100];
        try
        {
            var clock = Stopwatch.StartNew();
            using (var env = StorageEnvironment.Open(new StorageOptions(path)))
            {
                for (int start = 0; start < keys; start += 1000)
                {
                    using var tx = env.BeginWrite();
                    var tree = tx.CreateTree("demo");
                    for (int i = start; i < Math.Min(keys, start + 1000); i++)
                        tree.Put(Key(key, Scramble(i)), Value(value, Scramble(i)));
                    tx.Commit();
                }
                double fill = clock.Elapsed.TotalMilliseconds;

                clock.Restart();
                for (int i = keys - 1; i >= 0; i--)
                {
                    int n = Scramble(i);
                    using var tx = env.BeginRead();
                    if (!tx.OpenTree("demo").TryGet(Key(key, n), out var stored) || !stored.SequenceEqual(Value(value, n)))
                        throw new InvalidOperationException($"key {n} did not read back as written");
                }
                double read = clock.Elapsed.TotalMilliseconds;

                env.Dispose();
                clock.Restart();
                using var reopened = StorageEnvironment.Open(new StorageOptions(path));
                using (var tx = reopened.BeginRead())
                {
                    var tree = tx.OpenTree("demo");
                    if (tree.Count != keys)
                        throw new InvalidOperationException($"reopened with {tree.Count} keys instead of {keys}");
                }
                var report = reopened.Verify();
                return new EngineDemoResult(keys, fill, read, clock.Elapsed.TotalMilliseconds, report);
            }
        }
        finally
        {
            Directory.Delete(path, recursive: true);
        }
    }

    private static int Scramble(int i) => (int)((uint)i * 2654435761u % 1_000_000_007u);

    private static ReadOnlySpan<byte> Key(Span<byte> key, int n)
    {
        key.Clear();
        BinaryPrimitives.WriteInt32BigEndian(key[12..], n);
        return key;
    }

    private static ReadOnlySpan<byte> Value(Span<byte> value, int n)
    {
        value.Fill((byte)n);
        BinaryPrimitives.WriteInt32LittleEndian(value, n);
        return value;
    }
}
