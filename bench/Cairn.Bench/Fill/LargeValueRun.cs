using System.Diagnostics;
using System.Globalization;
using Cairn.Bench.KeyValue;
using Cairn.Bench.Peers.Lmdb;
using LightningDB;

namespace Cairn.Bench.Fill;

/// <summary>
/// <c>--large-values</c>: durable fills with large values, Cairn against LMDB, in alternating order round by
/// round, each fill in a fresh directory (issue 29, item 8). Both stores get the same keys (random order) and the
/// same values, <c>--batch</c> puts per write transaction, every commit durable when it returns (Cairn's
/// durable commits; LMDB's default, synced commits). A value is a slice of one random buffer at a key-dependent
/// offset, so values are incompressible and differ from key to key. After each fill every tenth key is read back
/// and compared; a mismatch fails the run.
/// </summary>
public static class LargeValueRun
{
    private const string TreeName = "bench";
    private const long LmdbMapSize = 64L << 30;
    private static readonly string[] s_allStores = ["lmdb", "cairn"];

    private sealed record Result(string Store, int ValueSize, int Round, double Seconds, double SecondsWithClose, string Load);

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var options = Options.Parse(args);
        string root = BenchScratch.Directory("large-values");
        var results = new List<Result>();
        try
        {
            foreach (int valueSize in options.ValueSizes)
            {
                int puts = options.PutsFor(valueSize);
                var keys = KeyGenerator.Shuffled(puts, KeyGenerator.FillSeed);
                var values = new ValueSource(valueSize);
                output.WriteLine($"large-values: {puts:N0} puts of {valueSize:N0} B values, {options.Batch} per durable transaction, " +
                    $"{options.Rounds} round(s); load {Load()}");
                for (int round = 1; round <= options.Rounds; round++)
                {
                    var stores = round % 2 == 1 ? options.Stores : options.Stores.Reverse().ToArray();
                    foreach (var store in stores)
                    {
                        string directory = Path.Combine(root, $"{store}-{valueSize}");
                        var result = FillOnce(store, directory, keys, values, options.Batch, round);
                        results.Add(result);
                        output.WriteLine($"  round {round} {store,-5} {puts / result.Seconds,10:N0} puts/s  {puts * (double)valueSize / result.Seconds / (1 << 20),8:N1} MiB/s  " +
                            $"(with close {puts / result.SecondsWithClose,10:N0} puts/s)  load {result.Load}");
                    }
                }
            }
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
        output.WriteLine();
        output.WriteLine("| value | puts per transaction | Cairn puts/s | LMDB puts/s | Cairn / LMDB (median of rounds) | with close |");
        output.WriteLine("|---|---|---|---|---|---|");
        foreach (int valueSize in options.ValueSizes)
        {
            var cairn = results.Where(r => r.Store == "cairn" && r.ValueSize == valueSize).OrderBy(r => r.Round).ToArray();
            var lmdb = results.Where(r => r.Store == "lmdb" && r.ValueSize == valueSize).OrderBy(r => r.Round).ToArray();
            int puts = options.PutsFor(valueSize);
            output.WriteLine($"| {valueSize:N0} B | {options.Batch} | {puts / Median(cairn.Select(r => r.Seconds)):N0} | {puts / Median(lmdb.Select(r => r.Seconds)):N0} | " +
                $"{Median(cairn.Zip(lmdb, (c, l) => l.Seconds / c.Seconds)):F2}× | {Median(cairn.Zip(lmdb, (c, l) => l.SecondsWithClose / c.SecondsWithClose)):F2}× |");
        }
        return 0;
    }

    private static Result FillOnce(string store, string directory, KeySet keys, ValueSource values, int batch, int round)
    {
        if (Directory.Exists(directory))
            Directory.Delete(directory, recursive: true);
        Directory.CreateDirectory(directory);
        string load = Load();
        double seconds, withClose;
        var clock = new Stopwatch();
        if (store == "cairn")
        {

            using (var env = StorageEnvironment.Open(new StorageOptions(directory) { CommitMode = CommitMode.Durable }))
            {
                using (var tx = env.BeginWrite())
                {
                    tx.CreateTree(TreeName);
                    tx.Commit();
                }
                clock.Start();
                for (int start = 0; start < keys.Count; start += batch)
                {
                    using var tx = env.BeginWrite();
                    var tree = tx.OpenTree(TreeName);
                    for (int i = start; i < Math.Min(start + batch, keys.Count); i++)
                        tree.Put(keys[i], values.For(i));
                    tx.Commit();
                }
                seconds = clock.Elapsed.TotalSeconds;
                using var read = env.BeginRead();
                var readTree = read.OpenTree(TreeName);
                for (int i = 0; i < keys.Count; i += 10)
                    Check(readTree.TryGet(keys[i], out var value) && value.SequenceEqual(values.For(i)), store, i);
            }
            withClose = clock.Elapsed.TotalSeconds;
        }
        else
        {
            using (var env = LmdbPeer.Open(directory, EnvironmentOpenFlags.NoReadAhead | EnvironmentOpenFlags.NoThreadLocalStorage, LmdbMapSize))
            using (var db = LmdbPeer.OpenMainDatabase(env))
            {
                clock.Start();
                for (int start = 0; start < keys.Count; start += batch)
                {
                    using var tx = env.BeginTransaction(TransactionBeginFlags.None);
                    for (int i = start; i < Math.Min(start + batch, keys.Count); i++)
                        tx.Put(db, keys[i], values.For(i), PutOptions.None).ThrowOnError();
                    tx.Commit().ThrowOnError();
                }
                seconds = clock.Elapsed.TotalSeconds;
                using var read = env.BeginTransaction(TransactionBeginFlags.ReadOnly);
                for (int i = 0; i < keys.Count; i += 10)
                {
                    var (code, _, value) = read.Get(db, keys[i]);
                    Check(code == MDBResultCode.Success && value.AsSpan().SequenceEqual(values.For(i)), store, i);
                }
            }
            withClose = clock.Elapsed.TotalSeconds;
        }
        Directory.Delete(directory, recursive: true);
        return new Result(store, values.Size, round, seconds, withClose, load);
    }

    private static void Check(bool ok, string store, int index)
    {
        if (!ok)
            throw new InvalidOperationException($"{store}: key {index} does not read back the value it was given");
    }

    private static string Load() => File.ReadAllText("/proc/loadavg").Split(' ')[0];

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.OrderBy(v => v).ToArray();
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    /// <summary>Values of one size: slices of a random buffer, the slice's start fixed by the key's index.</summary>
    private sealed class ValueSource
    {
        private const int Offsets = 4096;
        private readonly byte[] _random;

        public ValueSource(int size)
        {
            Size = size;
            _random = new byte[size + Offsets * 8];
            new Random(29).NextBytes(_random);
        }

        public int Size { get; }

        public ReadOnlySpan<byte> For(int index) => _random.AsSpan(index % Offsets * 8, Size);
    }

    private sealed record Options(IReadOnlyList<int> ValueSizes, long BytesPerFill, int Batch, int Rounds, IReadOnlyList<string> Stores)
    {
        /// <summary>Puts per fill: the bytes per fill in whole transactions, at least two transactions.</summary>
        public int PutsFor(int valueSize) => (int)Math.Max(2L * Batch, BytesPerFill / valueSize / Batch * Batch);

        public static Options Parse(IReadOnlyList<string> args)
        {
            var options = new Options([64 * 1024], 256L << 20, 100, 5, s_allStores);
            for (int i = 0; i < args.Count; i++)
            {
                string value = i + 1 < args.Count ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
                options = args[i] switch
                {
                    "--values" => options with { ValueSizes = value.Split(',').Select(v => int.Parse(v, CultureInfo.InvariantCulture)).ToArray() },
                    "--mib" => options with { BytesPerFill = long.Parse(value, CultureInfo.InvariantCulture) << 20 },
                    "--batch" => options with { Batch = int.Parse(value, CultureInfo.InvariantCulture) },
                    "--rounds" => options with { Rounds = int.Parse(value, CultureInfo.InvariantCulture) },
                    "--stores" => options with { Stores = value.Split(',').Where(s_allStores.Contains).ToArray() },
                    _ => throw new ArgumentException($"unknown option {args[i]}; known: --values N,.. (bytes), --mib N (per fill), --batch N, --rounds N, --stores lmdb,cairn"),
                };
                i++;
            }
            return options;
        }
    }
}
