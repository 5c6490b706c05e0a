using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.Peers.Lmdb;
using LightningDB;

namespace Cairn.Bench.Backups;

/// <summary>
/// <c>--backup [--mib N] [--rounds N] [--writers-backup-to-null | --writers-against read|hold] [--writers-only] [--pace MiB/s] [--journal-profile]</c>: backup throughput on the same data, rounds interleaved so a noisy disk
/// hits each alike: a plain sequential write of as many bytes (1 MiB writes, then fsync: the disk's rate),
/// <c>env.Backup(dir)</c> of an idle Cairn environment, and LMDB's <c>mdb_env_copy2</c> (LightningDB's
/// <c>CopyTo</c>, then an fsync of its file, which LMDB does not do), and the compacting variants of both
/// (<c>BackupOptions.Compact</c>, <c>MDB_CP_COMPACT</c>), compared by time for the same keys; and <c>cp -r</c> of the
/// backup's own files (the data file and the journals it copied) then <c>sync</c> of the copied files, the copy a user
/// would make of a stopped environment, timed in the same round. Then 16 <c>WriteAsync</c> callers' commit rate
/// while a backup runs against the same callers without one, also interleaved (<c>--writers-only</c>: only this part).
/// <c>--writers-against</c> replaces the backup by one of its parts, to tell which costs the writers:
/// <c>read</c> reads the data file front to back in 1 MiB preads and nothing else (no engine call), <c>hold</c> holds
/// the flusher's syncs as a backup does, for as long as a backup into <see cref="Stream.Null"/> takes, and reads nothing.
/// <c>--pace</c> gives the writers' backups <see cref="BackupOptions.MaxBytesPerSecond"/> (MiB/s; 0 or absent: none).
/// <c>--journal-profile</c> adds, for each writers' window, the journal writes' latency (<see cref="StorageEnvironment.IoStats"/>)
/// and the device's write and flush counters (<see cref="JournalProfile"/>).
/// </summary>
public static class BackupRun
{
    private const int ValueLength = 400;
    private const int Callers = 16;
    private static readonly TimeSpan WritersWindow = TimeSpan.FromSeconds(3);

    public static int Run(string[] args, TextWriter output)
    {
        int mib = Option(args, "--mib", 256), rounds = Option(args, "--rounds", 3);
        string root = BenchScratch.Directory("backup");
        try
        {
            int keys = (int)((long)mib << 20) / (ValueLength + 16);
            string cairnDir = Path.Combine(root, "cairn"), lmdbDir = Path.Combine(root, "lmdb");
            output.WriteLine($"loading {keys:N0} keys of {ValueLength} bytes into Cairn and LMDB ({mib} MiB of values)");
            bool profile = args.Contains("--journal-profile");
            // The profile reads each window's journal writes from the ring: room for a few seconds of them.
            using var env = StorageEnvironment.Open(new StorageOptions(cairnDir) { IoStatsCapacity = profile ? 1 << 18 : 4096 });
            Load(env, keys);
            env.Checkpoint();
            Directory.CreateDirectory(lmdbDir);
            using var lmdb = LmdbPeer.Open(lmdbDir, EnvironmentOpenFlags.None, 4L * mib << 20);
            Load(lmdb, keys);
            output.WriteLine($"LMDB: {LmdbPeer.Describe(lmdb)}");
            if (!args.Contains("--writers-only"))
                CompareCopies(env, lmdb, cairnDir, root, rounds, output);
            if (args.Contains("--copies-only"))
                return 0;
            int against = Array.IndexOf(args, "--writers-against");
            var stand = against >= 0 && against + 1 < args.Length ? args[against + 1]
                : args.Contains("--writers-backup-to-null") ? "null" : "backup";
            int pace = Option(args, "--pace", 0);
            WritersDuringBackup(env, root, rounds, stand, pace == 0 ? new BackupOptions() : new BackupOptions { MaxBytesPerSecond = (long)pace << 20 },
                profile ? JournalProfile.For(env, root) : null, output);
            return 0;
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>The copies against their peers, round by round.</summary>
    private static void CompareCopies(StorageEnvironment env, LightningEnvironment lmdb, string cairnDir, string root, int rounds, TextWriter output)
    {

        var (disk, cairn, lmdbCopy, cp) = (new Rate(), new Rate(), new Rate(), new Rate());
        var (cairnCompact, lmdbCompact) = (new Rate(), new Rate());
        var cairnStream = new Rate();
        for (int round = 0; round < rounds; round++)
        {
            long size = new FileInfo(Path.Combine(cairnDir, StorageEnvironment.DataFileName)).Length;
            disk.Add(size, Timed(() => SequentialWrite(Path.Combine(root, "sequential"), size)));
            string copy = Path.Combine(root, "cairn-copy");
            var result = default(BackupResult);
            var cairnTime = Timed(() => result = env.Backup(copy));
            cairn.Add(result!.Bytes, cairnTime);
            // A stream backup into nothing: the data file's read and the stream's checksums, no device writes (a cluster
            // snapshot's copy before the network).
            var streamTime = Timed(() => result = env.Backup(Stream.Null));
            cairnStream.Add(result!.Bytes, streamTime);
            string cpCopy = Path.Combine(root, "cp-copy");
            cp.Add(DirectoryBytes(copy), Timed(() => CopyWithCp(copy, cpCopy)));
            Directory.Delete(cpCopy, recursive: true);
            Directory.Delete(copy, recursive: true);
            string lcopy = Path.Combine(root, "lmdb-copy");
            CopyLmdb(lmdb, lcopy, compact: false, lmdbCopy);
            var compactTime = Timed(() => result = env.Backup(copy, new BackupOptions { Compact = true }, CancellationToken.None));
            cairnCompact.Add(DirectoryBytes(copy), compactTime);
            Directory.Delete(copy, recursive: true);
            CopyLmdb(lmdb, lcopy, compact: true, lmdbCompact);
            output.WriteLine($"round {round + 1}: disk {disk.Last}, Cairn backup {cairn.Last}, cp -r + sync {cp.Last}, LMDB copy {lmdbCopy.Last}, "
                + $"Cairn compacting backup {cairnCompact.LastTime}, LMDB compacting copy {lmdbCompact.LastTime}");
        }
        output.WriteLine($"sequential write  {disk}");
        output.WriteLine($"Cairn env.Backup  {cairn}  = {cairn.MiBPerSecond / disk.MiBPerSecond:0.00}x the disk");
        output.WriteLine($"LMDB mdb_env_copy2 {lmdbCopy}  Cairn/LMDB = {cairn.MiBPerSecond / lmdbCopy.MiBPerSecond:0.00}");
        output.WriteLine($"Cairn env.Backup(Stream.Null) {cairnStream}");
        output.WriteLine($"cp -r + sync      {cp}  Cairn time / cp time = {cairn.Seconds / cp.Seconds:0.00}");
        output.WriteLine($"Cairn compacting backup {cairnCompact}");
        output.WriteLine($"LMDB mdb_env_copy2(MDB_CP_COMPACT) {lmdbCompact}");
        output.WriteLine($"compacting, same keys: LMDB time / Cairn time = {lmdbCompact.Seconds / cairnCompact.Seconds:0.00} (Cairn's speed as a fraction of LMDB's)");
    }

    /// <summary>16 merged callers: commits per second while backups run back to back (at least 3 s), against as long without one, alternating.</summary>
    /// <param name="stand">What runs back to back: <c>backup</c> (into a directory), <c>null</c> (a backup into <see cref="Stream.Null"/>:
    /// the copy reads and holds the flusher's syncs but writes nothing), <c>read</c> or <c>hold</c> (see the class).</param>
    private static void WritersDuringBackup(StorageEnvironment env, string root, int rounds, string stand, BackupOptions options,
        JournalProfile? profile, TextWriter output)
    {
        long operations = 0;
        using var stop = new CancellationTokenSource();
        var callers = Enumerable.Range(0, Callers).Select(c => Task.Run(async () =>
        {
            var value = new byte[100];
            for (long n = 0; !stop.IsCancellationRequested; n++)
            {
                await env.WriteAsync((c, n, value), static (tx, s) =>
                    tx.CreateTree("writers").Put(BitConverter.GetBytes(s.c * 1_000_000_000L + s.n % 100_000), s.value));
                Interlocked.Increment(ref operations);
            }
        })).ToArray();
        double with = 0, without = 0;
        // How long a backup into Stream.Null takes, measured before the writers' rounds: what "hold" holds for.
        var holdFor = Timed(() => env.Backup(Stream.Null));
        output.WriteLine($"writers against: {stand}" + (stand == "hold" ? $" ({holdFor.TotalMilliseconds:0} ms each)" : "")
            + (options.MaxBytesPerSecond is long pace ? $", paced at {pace >> 20} MiB/s" : ", unpaced"));
        for (int round = 0; round < rounds; round++)
        {
            long before = Interlocked.Read(ref operations);
            var duringWindow = profile?.Start();
            string copy = Path.Combine(root, "during");
            int backups = 0;
            // Backups back to back for at least WritersWindow, so a short backup still gives a rate worth comparing.
            var elapsed = Timed(() =>
            {
                var window = Stopwatch.StartNew();
                do
                {
                    RunOnce(env, copy, stand, holdFor, options);
                    backups++;
                }
                while (window.Elapsed < WritersWindow);
            });
            double during = (Interlocked.Read(ref operations) - before) / elapsed.TotalSeconds;
            var duringFigures = profile?.End(duringWindow!);
            before = Interlocked.Read(ref operations);
            var idleWindow = profile?.Start();
            Thread.Sleep(elapsed);
            double idle = (Interlocked.Read(ref operations) - before) / elapsed.TotalSeconds;
            var idleFigures = profile?.End(idleWindow!);
            with += during;
            without += idle;
            output.WriteLine($"writers round {round + 1}: {during:N0} ops/s during {backups} backups in {elapsed.TotalSeconds:0.0} s, {idle:N0} ops/s without");
            if (profile is not null)
                output.WriteLine($"  during:  {duringFigures}\n  without: {idleFigures}");
        }
        stop.Cancel();
        Task.WaitAll(callers);
        output.WriteLine($"16 WriteAsync callers during a backup: {with / rounds:N0} ops/s, without: {without / rounds:N0} ops/s, ratio {with / without:0.00}");
    }

    private static void RunOnce(StorageEnvironment env, string copy, string stand, TimeSpan holdFor, BackupOptions options)
    {
        switch (stand)
        {
            case "null":
                env.Backup(Stream.Null, options, CancellationToken.None);
                break;
            case "read":
                ReadDataFile(Path.Combine(env.DirectoryPath, StorageEnvironment.DataFileName));
                break;
            case "hold":
                using (env.Parts.Flusher.HoldSync(static () => { }))
                    Thread.Sleep(holdFor);
                break;
            default:
                env.Backup(copy, options, CancellationToken.None);
                Directory.Delete(copy, recursive: true);
                break;
        }
    }

    /// <summary>Reads the data file front to back in 1 MiB preads through the page cache, as a backup reads it.</summary>
    private static void ReadDataFile(string path)
    {
        using var file = Cairn.Pal.PalFile.Open(path, Cairn.Pal.PalOpenFlags.ReadOnly | Cairn.Pal.PalOpenFlags.Sequential);
        var buffer = new byte[1 << 20];
        for (long offset = 0; file.Read(buffer, offset) is int read && read > 0; offset += read)
        {
        }
    }

    private static void Load(StorageEnvironment env, int keys)
    {
        var value = new byte[ValueLength];
        for (int start = 0; start < keys; start += 50_000)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("data");
            for (int i = start; i < Math.Min(keys, start + 50_000); i++)
            {
                Random.Shared.NextBytes(value.AsSpan(0, 16));
                tree.Put(Key(i), value);
            }
            tx.Commit();
        }
    }

    private static void Load(LightningEnvironment env, int keys)
    {
        var db = LmdbPeer.OpenMainDatabase(env);
        var value = new byte[ValueLength];
        for (int start = 0; start < keys; start += 50_000)
        {
            using var tx = env.BeginTransaction();
            for (int i = start; i < Math.Min(keys, start + 50_000); i++)
            {
                Random.Shared.NextBytes(value.AsSpan(0, 16));
                tx.Put(db, Key(i), value).ThrowOnError();
            }
            tx.Commit().ThrowOnError();
        }
    }

    private static byte[] Key(int i) => System.Text.Encoding.ASCII.GetBytes(i.ToString("D16", CultureInfo.InvariantCulture));

    private static void SequentialWrite(string path, long size)
    {
        var block = new byte[1 << 20];
        Random.Shared.NextBytes(block);
        using (var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0))
        {
            for (long done = 0; done < size; done += block.Length)
                file.Write(block, 0, (int)Math.Min(block.Length, size - done));
            file.Flush(flushToDisk: true);
        }
        File.Delete(path);
    }

    private static TimeSpan Timed(Action action)
    {
        long start = Stopwatch.GetTimestamp();
        action();
        return Stopwatch.GetElapsedTime(start);
    }

    private static int Option(string[] args, string name, int fallback)
    {
        int i = Array.IndexOf(args, name);
        return i >= 0 && i + 1 < args.Length ? int.Parse(args[i + 1], CultureInfo.InvariantCulture) : fallback;
    }

    /// <summary>
    /// LMDB's copy (<c>mdb_env_copy2</c>, with <c>MDB_CP_COMPACT</c> when <paramref name="compact"/>) into a new
    /// <paramref name="directory"/>, plus an fsync of its file inside the timing (LMDB does not sync the copy; Cairn
    /// syncs its own), added to <paramref name="rate"/> with the copy's size; the copy is deleted after.
    /// </summary>
    private static void CopyLmdb(LightningEnvironment lmdb, string directory, bool compact, Rate rate)
    {
        Directory.CreateDirectory(directory);
        string path = Path.Combine(directory, "data.mdb");
        var time = Timed(() =>
        {
            lmdb.CopyTo(directory, compact).ThrowOnError();
            using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
            file.Flush(flushToDisk: true);
        });
        rate.Add(new FileInfo(path).Length, time);
        Directory.Delete(directory, recursive: true);
    }

    /// <summary><c>cp -r</c> of <paramref name="from"/> to <paramref name="to"/>, then <c>sync</c> of every copied file (fsync each, as coreutils' sync does for named files).</summary>
    private static void CopyWithCp(string from, string to)
    {
        Run("cp", ["-r", from, to]);
        Run("sync", Directory.EnumerateFiles(to, "*", SearchOption.AllDirectories).ToArray());

        static void Run(string program, string[] arguments)
        {
            var start = new ProcessStartInfo(program);
            foreach (string argument in arguments)
                start.ArgumentList.Add(argument);
            using var process = Process.Start(start)!;
            process.WaitForExit();
            if (process.ExitCode != 0)
                throw new InvalidOperationException($"{program} exited with {process.ExitCode}");
        }
    }

    private static long DirectoryBytes(string directory)
        => Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories).Sum(f => new FileInfo(f).Length);

    private sealed class Rate
    {
        private long _bytes;
        private TimeSpan _time;

        public string Last { get; private set; } = "";

        public double MiBPerSecond => _bytes / 1048576.0 / _time.TotalSeconds;

        public void Add(long bytes, TimeSpan time)
        {
            _bytes += bytes;
            _time += time;
            Last = $"{bytes / 1048576.0 / time.TotalSeconds:N0} MiB/s";
            LastTime = $"{time.TotalSeconds:0.00} s ({bytes / 1048576.0:N0} MiB)";
        }

        public string LastTime { get; private set; } = "";

        public double Seconds => _time.TotalSeconds;

        public override string ToString() => $"{MiBPerSecond:N0} MiB/s ({_bytes / 1048576.0:N0} MiB in {_time.TotalSeconds:0.00} s)";
    }
}
