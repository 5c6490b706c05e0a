using System.Buffers.Binary;
using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cairn.Demo;

internal sealed record CrashRecoveryResult(long Acknowledged, long HighestAcknowledged, long RecoveredUpTo, long Lost,
    long TransactionsReplayed, double OpenMilliseconds, double KilledAfterMilliseconds, VerificationReport Verification);

/// <summary>
/// Kills a writer mid-stream and recovers: a child process commits and acknowledges transactions, this
/// process SIGKILLs it, reopens the environment (recovery replays the journals, logged to the console)
/// and checks that every acknowledged transaction is there, that nothing after the last one is, and
/// that <see cref="StorageEnvironment.Verify"/> passes.
/// </summary>
internal static class CrashRecoveryDemo
{
    public const string TreeName = "crash-demo";
    public static readonly byte[] LastKey = "last"u8.ToArray();

    public static StorageOptions Options(string directory, ILoggerFactory? loggerFactory) => new(directory)
    {
        FlushThresholdBytes = 1 << 20,
        MaxFlushDelay = TimeSpan.FromMilliseconds(50),
        SyncInterval = TimeSpan.FromMilliseconds(200),
        InitialJournalFileBytes = 256 << 10,
        MaxJournalFileBytes = 4 << 20,
        LoggerFactory = loggerFactory,
    };

    public static byte[] Key(long i)
    {
        var key = new byte[9];
        key[0] = (byte)'t';
        BinaryPrimitives.WriteInt64BigEndian(key.AsSpan(1), i);
        return key;
    }

    public static byte[] Number(long i)
    {
        var bytes = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(bytes, i);
        return bytes;
    }

    /// <summary>200 bytes, or 20 KB on overflow pages every 50th transaction, all derived from the number.</summary>
    public static byte[] Value(long i)
    {
        var value = new byte[i % 50 == 0 ? 20_000 : 200];
        BinaryPrimitives.WriteInt64BigEndian(value, i);
        for (int b = 8; b < value.Length; b++)
            value[b] = (byte)(i * 31 + b);
        return value;
    }

    public static CrashRecoveryResult Run(string directory, ILoggerFactory loggerFactory, TimeSpan runFor)
    {
        string path = Path.Combine(directory, "crash");
        if (Directory.Exists(path))
            Directory.Delete(path, recursive: true);
        // The writer is this program again, started the way this one was: through the application's own
        // executable when it has one (an apphost, a self-contained publish for linux-arm64 or win-x64), else
        // through 'dotnet' and the assembly. 'dotnet' of the machine could not run a self-contained publish
        // for another platform.
        string? self = Environment.ProcessPath;
        bool viaDotnet = self is null || Path.GetFileNameWithoutExtension(self).Equals("dotnet", StringComparison.OrdinalIgnoreCase);
        var start = new ProcessStartInfo(viaDotnet ? "dotnet" : self!) { RedirectStandardOutput = true, RedirectStandardError = true };
        if (viaDotnet)
            start.ArgumentList.Add(typeof(CrashRecoveryDemo).Assembly.Location);
        start.ArgumentList.Add("--crash-writer");
        start.ArgumentList.Add(path);
        using var child = Process.Start(start) ?? throw new InvalidOperationException("could not start the crash writer");
        var stderr = child.StandardError.ReadToEndAsync();

        long acknowledged = 0, highest = 0;
        var clock = new Stopwatch();
        string? line;
        while ((line = child.StandardOutput.ReadLine()) is not null)
        {
            if (line.StartsWith("start ", StringComparison.Ordinal))
                clock.Start();
            else if (line.StartsWith("ack ", StringComparison.Ordinal))
            {
                highest = long.Parse(line.AsSpan(4));
                acknowledged++;
                if (clock.Elapsed >= runFor)
                    break;
            }
        }
        double killedAfter = clock.Elapsed.TotalMilliseconds;
        child.Kill(); // SIGKILL: no chance to flush, sync or close anything
        child.WaitForExit();
        // Acknowledgements printed before the kill landed still count.
        while ((line = child.StandardOutput.ReadLine()) is not null)
        {
            if (line.StartsWith("ack ", StringComparison.Ordinal))
            {
                highest = long.Parse(line.AsSpan(4));
                acknowledged++;
            }
        }
        if (acknowledged == 0)
            throw new InvalidOperationException($"the crash writer acknowledged nothing: {stderr.Result}");

        var open = Stopwatch.StartNew();
        using var env = StorageEnvironment.Open(Options(path, loggerFactory));
        double openMilliseconds = open.Elapsed.TotalMilliseconds;
        // Before the background thread syncs what recovery rebuilt: the header still says where the data file was.
        long replayed = env.LastCommittedTransactionId - env.LastSyncedTransactionId;
        long recovered;
        long lost = 0;
        using (var tx = env.BeginRead())
        {
            var tree = tx.OpenTree(TreeName);
            recovered = BinaryPrimitives.ReadInt64BigEndian(tree.Get(LastKey));
            for (long i = 1; i <= highest; i++)
            {
                if (!tree.TryGet(Key(i), out var value))
                    lost++;
                else if (!value.SequenceEqual(Value(i)))
                    throw new InvalidOperationException($"transaction {i}'s value came back different");
            }
            if (tree.Get(Key(recovered + 1)) is not null)
                throw new InvalidOperationException($"transaction {recovered + 1} is half there: its key exists but 'last' says {recovered}");
            if (tree.Count != recovered + 1)
                throw new InvalidOperationException($"{tree.Count - 1} transactions' keys for 'last' = {recovered}: a hole or a partial transaction");
        }
        var report = env.Verify();
        return new CrashRecoveryResult(acknowledged, highest, recovered, lost, replayed, openMilliseconds, killedAfter, report);
    }
}
