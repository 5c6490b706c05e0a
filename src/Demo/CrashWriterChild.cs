using System.Buffers.Binary;

namespace Cairn.Demo;

/// <summary>
/// The child half of the crash demo (<c>Cairn.Demo --crash-writer DIR</c>): commits transaction after
/// transaction, each writing its number into the data, and prints <c>ack N</c> once a commit has
/// returned, until it is killed. Flushing and syncing are set to happen often, so the kill lands in
/// the middle of background writes as well as commits.
/// </summary>
internal static class CrashWriterChild
{
    public static int Run(string directory)
    {
        using var env = StorageEnvironment.Open(CrashRecoveryDemo.Options(directory, loggerFactory: null));
        long first;
        using (var tx = env.BeginRead())
            first = tx.TryOpenTree(CrashRecoveryDemo.TreeName, out var tree) && tree.Get(CrashRecoveryDemo.LastKey) is { } last
                ? BinaryPrimitives.ReadInt64BigEndian(last) + 1
                : 1;
        Console.WriteLine($"start {first}");
        for (long i = first; ; i++)
        {
            using (var tx = env.BeginWrite())
            {
                var tree = tx.CreateTree(CrashRecoveryDemo.TreeName);
                tree.Put(CrashRecoveryDemo.Key(i), CrashRecoveryDemo.Value(i));
                tree.Put(CrashRecoveryDemo.LastKey, CrashRecoveryDemo.Number(i));
                tx.Commit();
            }
            Console.WriteLine($"ack {i}");
        }
    }
}
