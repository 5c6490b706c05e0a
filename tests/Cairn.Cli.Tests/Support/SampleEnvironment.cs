using System.Text;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests.Support;

/// <summary>
/// A small real environment, closed cleanly: tree "users" with 200 UTF-8 entries ("user:0000".."user:0199"), tree
/// "bytes" whose keys and values need escaping, and tree "marked" with one entry whose value is found on disk by
/// its bytes, so a test can damage that page without knowing the engine's layout. It keeps the I/O statistics of
/// its commits as the dump a host would save.
/// </summary>
public sealed class SampleEnvironment : IDisposable
{
    public static readonly byte[] Marker = Encoding.ASCII.GetBytes("<<cairn-cli-test-marker:" + new string('m', 200) + ">>");

    private readonly TestDirectory _directory;

    public SampleEnvironment(string name)
    {
        _directory = new TestDirectory(name);
        try
        {
            Path = _directory.File("env");
            using var env = StorageEnvironment.Open(new StorageOptions(Path));
            for (int batch = 0; batch < 4; batch++)
            {
                using var tx = env.BeginWrite();
                var users = tx.CreateTree("users");
                for (int k = batch * 50; k < (batch + 1) * 50; k++)
                    users.Put(Encoding.UTF8.GetBytes($"user:{k:D4}"), Encoding.UTF8.GetBytes($"{{\"name\":\"user {k}\",\"city\":\"Zürich\"}}"));
                tx.Commit();
            }
            using (var tx = env.BeginWrite())
            {
                var bytes = tx.CreateTree("bytes");
                bytes.Put([0x00, 0xff, 0x10], [0x09, 0x0a, 0x5c, 0x41]);
                bytes.Put("tab\tkey"u8, "line\nbreak"u8);
                tx.CreateTree("marked").Put("only"u8, Marker);
                tx.Commit();
            }
            LastCommittedTransactionId = env.LastCommittedTransactionId;
            EnvironmentId = env.EnvironmentId;
            Stats = env.IoStats;
            env.Checkpoint();
        }
        catch
        {
            _directory.Dispose();
            throw;
        }
    }

    /// <summary>The environment's directory.</summary>
    public string Path { get; }

    public string DataFile => System.IO.Path.Combine(Path, StorageEnvironment.DataFileName);

    public long LastCommittedTransactionId { get; }

    public Guid EnvironmentId { get; }

    /// <summary>The I/O statistics of the environment's commits, flush and sync.</summary>
    public IoStats Stats { get; }

    public string Scratch(string name) => _directory.File(name);

    /// <summary>Writes <see cref="Stats"/> as a JSON dump and returns its path.</summary>
    public string SaveStats()
    {
        string path = _directory.File("io-stats.json");
        using var file = File.Create(path);
        Stats.WriteJson(file);
        return path;
    }

    /// <summary>The data-file page that holds <see cref="Marker"/>.</summary>
    public long MarkedPage()
    {
        var bytes = File.ReadAllBytes(DataFile);
        int at = bytes.AsSpan().IndexOf(Marker);
        Assert.True(at >= 0, "the marker value is not in the data file");
        return at / StorageEnvironment.PageSize;
    }

    public void Dispose() => _directory.Dispose();
}
