using Cairn.Tests.Support;

namespace Cairn.Tests.Backup;

/// <summary>Reads whole environments for backup tests: every tree's entries, compared key by key.</summary>
internal static class BackupContent
{
    public static SortedDictionary<string, Dictionary<string, byte[]>> ReadAll(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        var trees = new SortedDictionary<string, Dictionary<string, byte[]>>(StringComparer.Ordinal);
        foreach (string name in tx.GetTreeNames())
        {
            var entries = new Dictionary<string, byte[]>();
            using var cursor = tx.OpenTree(name).CreateCursor();
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                entries.Add(Convert.ToHexString(cursor.Key), cursor.Value.ToArray());
            trees.Add(name, entries);
        }
        return trees;
    }

    public static SortedDictionary<string, Dictionary<string, byte[]>> ReadAll(string directory)
    {
        using var env = StorageEnvironment.Open(new StorageOptions(directory));
        env.Verify();
        return ReadAll(env);
    }

    public static void AssertEqual(SortedDictionary<string, Dictionary<string, byte[]>> expected, SortedDictionary<string, Dictionary<string, byte[]>> actual)
    {
        Assert.Equal(expected.Keys, actual.Keys);
        foreach (var (tree, entries) in expected)
        {
            Assert.Equal(entries.Count, actual[tree].Count);
            foreach (var (key, value) in entries)
                Assert.True(actual[tree].TryGetValue(key, out var got) && got.AsSpan().SequenceEqual(value), $"{tree}/{key} differs");
        }
    }

    /// <summary>Writes <paramref name="count"/> keys of <paramref name="valueLength"/> bytes into <paramref name="tree"/> in one transaction.</summary>
    public static void Fill(StorageEnvironment env, string tree, int from, int count, int valueLength, int seed = 0)
    {
        using var tx = env.BeginWrite();
        var t = tx.CreateTree(tree);
        for (int i = from; i < from + count; i++)
            t.Put(Bytes.Key(i), Bytes.Value(i + seed, valueLength));
        tx.Commit();
    }
}

/// <summary>An <see cref="IProgress{T}"/> that runs its callback on the reporting thread, inside the copy.</summary>
internal sealed class InlineProgress(Action<BackupProgress> report) : IProgress<BackupProgress>
{
    public void Report(BackupProgress value) => report(value);
}
