using System.Buffers;
using System.Buffers.Binary;
using System.IO.Hashing;
using System.Net;
using Cairn.Pal;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.Membership;

namespace Cairn.Cluster.Membership;

/// <summary>
/// A node's cluster configuration, kept in its <c>members</c> file: DotNext's configuration storage for the node's
/// <c>RaftCluster</c> and for its log's applier, which saves each configuration entry here as it commits, with the
/// entry's log index as the version. A save of a version not newer than the one held is refused (a replayed or
/// resent configuration), so a restart's replay never goes back to an older membership. The file is replaced
/// whole, durably: written beside it, flushed, renamed over it, and the folder flushed.
/// </summary>
internal sealed class MembershipStore : IClusterConfigurationStorage<EndPoint>
{
    public const string FileName = "members";
    private const int VersionBytes = sizeof(long);
    private const int ChecksumBytes = sizeof(ulong);

    private readonly string path;
    private readonly SemaphoreSlim gate = new(1, 1); // protects current, version and the file; held while handlers run, so they see saves in order
    private Func<IClusterConfiguration<EndPoint>, CancellationToken, ValueTask>? changed;
    private MemberConfiguration current;
    private long version;

    private MembershipStore(string path, MemberConfiguration current, long version)
    {
        this.path = path;
        this.current = current;
        this.version = version;
    }

    /// <summary>The configuration held now.</summary>
    public MemberConfiguration Current => Volatile.Read(ref current);

    /// <summary>
    /// Opens the store in <paramref name="directory"/>. With no file yet, a non-empty <paramref name="seed"/> is the
    /// founding membership (saved as version 0); an empty one leaves the node with no configuration, to be added to
    /// an existing cluster. With a file, the file is the membership and the seed is not used.
    /// </summary>
    /// <exception cref="CorruptMembershipException">The file does not decode.</exception>
    public static MembershipStore Open(string directory, IReadOnlyList<EndPoint> seed)
    {
        Directory.CreateDirectory(directory);
        var path = Path.Combine(directory, FileName);
        if (File.Exists(path))
        {
            var (configuration, version) = Read(path);
            return new MembershipStore(path, configuration, version);
        }

        if (seed.Count == 0)
            return new MembershipStore(path, MemberConfiguration.Empty, version: -1);
        var founding = new MemberConfiguration([.. seed], []);
        WriteDurably(path, founding, 0);
        return new MembershipStore(path, founding, 0);
    }

    public event Func<IClusterConfiguration<EndPoint>, CancellationToken, ValueTask> ConfigurationChanged
    {
        add => changed += value;
        remove => changed -= value;
    }

    public ValueTask<IClusterConfiguration<EndPoint>> LoadConfigurationAsync(CancellationToken token = default)
        => ValueTask.FromResult<IClusterConfiguration<EndPoint>>(Current);

    async ValueTask<(IDataTransferObject Configuration, long Version)> IClusterConfigurationStorage.LoadConfigurationAsync(CancellationToken token)
    {
        await gate.WaitAsync(token).ConfigureAwait(false);
        try
        {
            return (current, long.Max(version, 0));
        }
        finally
        {
            gate.Release();
        }
    }

    public async ValueTask<bool> SaveConfigurationAsync<TConfiguration>(TConfiguration configuration, long configurationVersion, CancellationToken token = default)
        where TConfiguration : IDataTransferObject
    {
        var encoded = configuration.TryGetMemory(out var memory) ? memory : await ReadAllAsync(configuration, token).ConfigureAwait(false);
        var received = MemberConfiguration.Decode(encoded.Span, $"the configuration of version {configurationVersion}");
        await gate.WaitAsync(token).ConfigureAwait(false);
        try
        {
            if (configurationVersion <= version)
                return false;
            WriteDurably(path, received, configurationVersion);
            Volatile.Write(ref current, received);
            version = configurationVersion;
            foreach (var handler in Delegate.EnumerateInvocationList(changed))
                await handler(received, token).ConfigureAwait(false);
            return true;
        }
        finally
        {
            gate.Release();
        }
    }

    public void Dispose() => gate.Dispose();

    private static async ValueTask<ReadOnlyMemory<byte>> ReadAllAsync<TConfiguration>(TConfiguration configuration, CancellationToken token)
        where TConfiguration : IDataTransferObject
    {
        var buffer = new ArrayBufferWriter<byte>();
        await configuration.WriteToAsync(buffer, token).ConfigureAwait(false);
        return buffer.WrittenMemory;
    }

    /// <summary>The file: <c>version:i64 | configuration | xxh3:u64</c> of the two before it.</summary>
    private static (MemberConfiguration Configuration, long Version) Read(string path)
    {
        var bytes = File.ReadAllBytes(path);
        if (bytes.Length < VersionBytes + ChecksumBytes)
            throw new CorruptMembershipException(path, 0, $"{bytes.Length} bytes is shorter than any members file");
        var body = bytes.AsSpan(0, bytes.Length - ChecksumBytes);
        if (XxHash3.HashToUInt64(body) != BinaryPrimitives.ReadUInt64LittleEndian(bytes.AsSpan(body.Length)))
            throw new CorruptMembershipException(path, body.Length, "the file's checksum does not match");
        var version = BinaryPrimitives.ReadInt64LittleEndian(body);
        return (MemberConfiguration.Decode(body[VersionBytes..], path, VersionBytes), version);
    }

    private static void WriteDurably(string path, MemberConfiguration configuration, long version)
    {
        var bytes = new byte[VersionBytes + configuration.Bytes.Length + ChecksumBytes];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, version);
        configuration.Bytes.Span.CopyTo(bytes.AsSpan(VersionBytes));
        var body = bytes.AsSpan(0, bytes.Length - ChecksumBytes);
        BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(body.Length), XxHash3.HashToUInt64(body));
        var temporary = path + ".new";
        using (var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            file.Write(bytes);
            file.Flush(flushToDisk: true);
        }

        File.Move(temporary, path, overwrite: true);
        // The rename is durable only once the folder's entry is.
        PalFileSystem.SyncDirectory(Path.GetDirectoryName(path)!);
    }
}
