using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>What the shipping tests share: a full backup as a copy of a cleanly closed environment, and a content dump to compare.</summary>
internal static class ShippingFixtures
{
    /// <summary>
    /// Copies the environment in <paramref name="source"/> (closed) to <paramref name="destination"/>: a full backup, the same
    /// environment id. Its journals come along too, so a copy of a crashed environment recovers like the original.
    /// </summary>
    public static void CopyEnvironment(string source, string destination)
    {
        Directory.CreateDirectory(Path.Combine(destination, "Journals"));
        File.Copy(Path.Combine(source, StorageEnvironment.DataFileName), Path.Combine(destination, StorageEnvironment.DataFileName));
        foreach (var journal in Directory.EnumerateFiles(Path.Combine(source, "Journals")))
            File.Copy(journal, Path.Combine(destination, "Journals", Path.GetFileName(journal)));
    }

    /// <summary>A primary in <paramref name="primary"/> with tree "t" holding <paramref name="keys"/> keys, closed, and a full backup of it in <paramref name="backup"/>.</summary>
    public static long CreatePrimaryAndBackup(string primary, string backup, int keys = 10)
    {
        long transaction;
        using (var env = StorageEnvironment.Open(new StorageOptions(primary)))
        {
            using (var tx = env.BeginWrite())
            {
                var t = tx.CreateTree("t");
                for (int k = 0; k < keys; k++)
                    t.Put(Bytes.Key(k), Bytes.Value(k, 100));
                tx.Commit();
            }
            transaction = env.LastCommittedTransactionId;
        }
        CopyEnvironment(primary, backup);
        return transaction;
    }

    /// <summary>Every tree's keys and values as of the latest state, sorted: two environments with the same dump hold the same data.</summary>
    public static SortedDictionary<string, string> Dump(StorageEnvironment env) => Dump(env.BeginRead());

    /// <inheritdoc cref="Dump(StorageEnvironment)"/>
    public static SortedDictionary<string, string> Dump(ReplicaEnvironment replica) => Dump(replica.BeginRead());

    private static SortedDictionary<string, string> Dump(ReadTransaction read)
    {
        var dump = new SortedDictionary<string, string>(StringComparer.Ordinal);
        using var tx = read;
        foreach (var name in tx.GetTreeNames())
        {
            using var cursor = tx.OpenTree(name).CreateCursor();
            for (bool more = cursor.SeekFirst(); more; more = cursor.MoveNext())
                dump[name + "/" + Convert.ToHexString(cursor.Key)] = Convert.ToHexString(cursor.Value);
        }
        return dump;
    }

    /// <summary>Commits <paramref name="count"/> transactions of one put each into tree "t", keys from <paramref name="firstKey"/>.</summary>
    public static void Commit(StorageEnvironment env, int firstKey, int count, int valueLength = 300)
    {
        for (int i = 0; i < count; i++)
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("t").Put(Bytes.Key(firstKey + i), Bytes.Value(firstKey + i, valueLength));
            tx.Commit();
        }
    }
}
