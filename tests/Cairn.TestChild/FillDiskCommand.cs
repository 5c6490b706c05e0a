namespace Cairn.TestChild;

/// <summary>
/// <c>fill-disk DIR</c>: one writer commits values of 24 B to 1.3 MiB (<see cref="LargeValues"/>) into DIR until the disk is
/// full, printing "ack N" after each acknowledged commit; at the first <see cref="DiskFullException"/> it prints "full"
/// and blocks until standard input closes: the full-disk kill test kills it there.
/// </summary>
public static class FillDiskCommand
{
    public static int Run(string directory)
    {
        var env = StorageEnvironment.Open(LargeValues.Options(directory));
        for (int key = 1; ; key++)
        {
            try
            {
                LargeValues.Put(env, key);
            }
            catch (DiskFullException e)
            {
                Console.WriteLine($"full {e.Message}");
                Console.Out.Flush();
                Console.In.ReadToEnd();
                env.Dispose();
                return 0;
            }
            Console.WriteLine($"ack {key}");
            Console.Out.Flush();
        }
    }
}

/// <summary>The full-disk cases' workload: key N gets a value whose length (24 B to 1.3 MiB) and bytes follow from N alone.</summary>
public static class LargeValues
{
    public const int Largest = 1_363_148; // 1.3 MiB

    /// <summary>
    /// Engine defaults, except that the background flusher waits long enough never to run during a case (every commit
    /// then stays in the journals until a checkpoint, the hardest case for a small disk, and the same on a loaded
    /// machine) and journals of at most 4 MiB: a checkpoint's step then needs about that much room, which the cases
    /// always leave, while a whole flush needs every journal's pages (about 40 MB), which they never do. So whether the
    /// close succeeds does not depend on where the fill happened to stop.
    /// </summary>
    public static StorageOptions Options(string directory) => new(directory)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
        MaxJournalFileBytes = 4 << 20,
    };

    /// <summary><see cref="Options"/> with the engine's journal sizes (up to 256 MiB, 16 MiB at most on a 64 MiB disk).</summary>
    public static StorageOptions EngineJournalSizes(string directory) => new(directory)
    {
        MaxFlushDelay = TimeSpan.FromHours(1),
        SyncInterval = TimeSpan.FromHours(1),
    };

    /// <summary>Every fifth value is about 1.3 MiB (an overflow run of ~160 pages), the others spread over 24 B to 400 KB.</summary>
    public static int Length(long key) => key % 5 == 0 ? Largest - (int)(key % 4096) : 24 + (int)((key * 2654435761L) % 400_000);

    public static byte[] Value(long key)
    {
        var value = new byte[Length(key)];
        new Random(unchecked((int)key)).NextBytes(value);
        return value;
    }

    public static byte[] Key(long key)
    {
        var bytes = new byte[8];
        System.Buffers.Binary.BinaryPrimitives.WriteInt64BigEndian(bytes, key);
        return bytes;
    }

    public static void Put(StorageEnvironment env, long key)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree("t").Put(Key(key), Value(key));
        tx.Commit();
    }
}
