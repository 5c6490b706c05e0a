using System.Collections.Immutable;
using System.Net;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.Membership;

namespace Cairn.Cluster.Membership;

/// <summary>
/// A cluster configuration as DotNext replicates it: the voting members, and every id ever removed. An id is used
/// once: <see cref="Add"/> refuses (returns this same configuration, which DotNext takes as "not added") an id that
/// is a member or was one, and <see cref="Remove"/> moves a member to the retired list. The retired list travels
/// with the configuration through the log, snapshots and each node's <c>members</c> file, so any later leader
/// refuses a removed id as well.
/// </summary>
internal sealed class MemberConfiguration : IClusterConfiguration<EndPoint>
{
    private readonly byte[] bytes;

    public MemberConfiguration(ImmutableHashSet<EndPoint> members, ImmutableHashSet<EndPoint> retired)
    {
        Members = members;
        Retired = retired;
        bytes = MembershipCodec.Encode(members, retired);
    }

    public static MemberConfiguration Empty { get; } = new([], []);

    public ImmutableHashSet<EndPoint> Members { get; }

    public ImmutableHashSet<EndPoint> Retired { get; }

    IReadOnlySet<EndPoint> IClusterConfiguration<EndPoint>.Members => Members;

    /// <summary>The encoded configuration (<see cref="MembershipCodec"/>).</summary>
    public ReadOnlyMemory<byte> Bytes => bytes;

    public static MemberConfiguration Decode(ReadOnlySpan<byte> encoded, string source, long baseOffset = 0)
    {
        var (members, retired) = MembershipCodec.Decode(encoded, source, baseOffset);
        return new MemberConfiguration(members, retired);
    }

    public IClusterConfiguration<EndPoint> Add(EndPoint address)
        => Members.Contains(address) || Retired.Contains(address) ? this : new MemberConfiguration(Members.Add(address), Retired);

    public IClusterConfiguration<EndPoint> Remove(EndPoint address)
        => Members.Contains(address) ? new MemberConfiguration(Members.Remove(address), Retired.Add(address)) : this;

    bool IDataTransferObject.IsReusable => true;

    long? IDataTransferObject.Length => bytes.Length;

    bool IDataTransferObject.TryGetMemory(out ReadOnlyMemory<byte> memory)
    {
        memory = bytes;
        return true;
    }

    ValueTask IDataTransferObject.WriteToAsync<TWriter>(TWriter writer, CancellationToken token)
        => writer.WriteAsync(bytes, lengthFormat: null, token);

    public override string ToString()
        => $"members [{string.Join(", ", Members.Order(EndPointOrder.Instance))}], retired [{string.Join(", ", Retired.Order(EndPointOrder.Instance))}]";
}

/// <summary>Addresses in ordinal order of their text, for messages and listings that must read the same everywhere.</summary>
internal sealed class EndPointOrder : IComparer<EndPoint>
{
    public static readonly EndPointOrder Instance = new();

    public int Compare(EndPoint? x, EndPoint? y) => string.CompareOrdinal(x?.ToString(), y?.ToString());
}
