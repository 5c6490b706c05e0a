using System.Diagnostics;
using System.Runtime.InteropServices;
using DotNext.Net.Cluster.Consensus.Raft;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace Cairn.Cluster.Bench;

/// <summary>
/// The floor under a follower's flush (issue 28 item 5): one entry appended to DotNext's <see cref="WriteAheadLog"/>
/// and flushed (<see cref="WriteAheadLog.FlushAsync(CancellationToken)"/>, what <c>FlushingRaftLog</c> waits for
/// before a follower answers), in each of DotNext 6.12's page kinds, against one O_DIRECT|O_DSYNC write of the same
/// bytes rounded up to a 4 KiB block (what Cairn's journal does per durable entry). The kinds run interleaved, one
/// entry each in turn, so the machine's load falls on all of them alike.
/// </summary>
internal static class FlushFloorBench
{
    private const int Block = 4096;

    public static async Task RunAsync(int rounds, int writes, int entryBytes)
    {
        using var scratch = new Scratch("flush-floor");
        var payload = new byte[entryBytes];
        Random.Shared.NextBytes(payload);
        var logs = new (string Name, WriteAheadLog Log)[]
        {
            ("mapped (default)", Open(scratch.Sub("mapped"), WriteAheadLog.MemoryManagementStrategy.SharedMemory, noBuffering: false)),
            ("private memory", Open(scratch.Sub("private"), WriteAheadLog.MemoryManagementStrategy.PrivateMemory, noBuffering: false)),
            ("private + NoBuffering", Open(scratch.Sub("direct"), WriteAheadLog.MemoryManagementStrategy.PrivateMemory, noBuffering: true)),
        };
        using var direct = new DirectFile(scratch.Sub("odirect.log"));
        var times = new List<double>[logs.Length + 1];
        for (var i = 0; i < times.Length; i++)
            times[i] = [];
        try
        {
            foreach (var (_, log) in logs)
                await log.InitializeAsync();
            Console.WriteLine($"flush floor: {entryBytes} B entries, {rounds} x {writes} per kind, interleaved, load {Measure.Load()}");
            for (var round = 0; round < rounds; round++)
            {
                for (var w = 0; w < writes; w++)
                {
                    for (var k = 0; k < logs.Length; k++)
                    {
                        var started = Stopwatch.GetTimestamp();
                        await logs[k].Log.AppendAsync(new BinaryLogEntry { Term = 1, Content = payload });
                        await logs[k].Log.FlushAsync();
                        times[k].Add(Measure.Milliseconds(Stopwatch.GetTimestamp() - started));
                    }

                    var at = Stopwatch.GetTimestamp();
                    direct.Append(payload);
                    times[^1].Add(Measure.Milliseconds(Stopwatch.GetTimestamp() - at));
                }

                Console.WriteLine($"  round {round + 1} done, load {Measure.Load()}");
            }
        }
        finally
        {
            foreach (var (_, log) in logs)
                await log.DisposeAsync();
        }

        var floor = Measure.Percentile(times[^1], 0.5);
        Console.WriteLine("| append + flush of one entry | p50 ms | p90 ms | p99 ms | p50 / O_DIRECT write |");
        Console.WriteLine("|---|---|---|---|---|");
        for (var k = 0; k <= logs.Length; k++)
        {
            var name = k < logs.Length ? $"DotNext WriteAheadLog, {logs[k].Name}" : "one O_DIRECT|O_DSYNC pwrite (4 KiB)";
            var p50 = Measure.Percentile(times[k], 0.5);
            Console.WriteLine($"| {name} | {p50:F3} | {Measure.Percentile(times[k], 0.9):F3} | {Measure.Percentile(times[k], 0.99):F3} | {p50 / floor:F1} |");
        }
    }

    private static WriteAheadLog Open(string path, WriteAheadLog.MemoryManagementStrategy memory, bool noBuffering)
        => new(new WriteAheadLog.Options { Location = path, MemoryManagement = memory, NoBuffering = noBuffering },
            IStateMachine.CreateNoOp(long.MaxValue));

    /// <summary>An append-only file written with O_DIRECT|O_DSYNC, one 4 KiB-aligned block per append.</summary>
    private sealed unsafe class DirectFile : IDisposable
    {
        // Linux x86-64 and arm64 open(2) flags; the bench runs on Linux only (the cluster bench's one platform).
        private const int WriteOnly = 0x1, Create = 0x40, DataSync = 0x1000, Direct = 0x4000;
        private readonly int fd;
        private readonly byte* buffer;
        private long end;

        public DirectFile(string path)
        {
            if (!OperatingSystem.IsLinux())
                throw new PlatformNotSupportedException("The flush floor's O_DIRECT write is Linux only.");
            fd = open(path, WriteOnly | Create | DataSync | Direct, 0x180);
            if (fd < 0)
                throw new IOException($"open({path}, O_DIRECT|O_DSYNC) failed: errno {Marshal.GetLastPInvokeError()}");
            buffer = (byte*)NativeMemory.AlignedAlloc(Block * 16, Block);
        }

        public void Append(ReadOnlySpan<byte> bytes)
        {
            var length = (bytes.Length + Block - 1) / Block * Block;
            var target = new Span<byte>(buffer, length);
            target.Clear();
            bytes.CopyTo(target);
            if (pwrite(fd, buffer, (nuint)length, end) != length)
                throw new IOException($"pwrite at {end} failed: errno {Marshal.GetLastPInvokeError()}");
            end += length;
        }

        public void Dispose()
        {
            _ = close(fd);
            NativeMemory.AlignedFree(buffer);
        }

        [DllImport("libc", SetLastError = true)]
        private static extern int open(string path, int flags, int mode);

        [DllImport("libc", SetLastError = true)]
        private static extern nint pwrite(int fd, byte* buffer, nuint count, long offset);

        [DllImport("libc")]
        private static extern int close(int fd);
    }
}
