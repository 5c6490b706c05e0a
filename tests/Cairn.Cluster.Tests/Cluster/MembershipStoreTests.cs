using System.Net;
using Cairn.Cluster.Membership;
using Cairn.Tests.Support;
using DotNext.Net.Cluster.Consensus.Raft.Membership;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>A node's configuration storage and the configuration it replicates, without a cluster.</summary>
public sealed class MembershipStoreTests
{
    private static readonly EndPoint A = new IPEndPoint(IPAddress.Loopback, 4001);
    private static readonly EndPoint B = new IPEndPoint(IPAddress.IPv6Loopback, 4002);
    private static readonly EndPoint C = new DnsEndPoint("node-c.example", 4003);

    [Fact]
    public void Ids_enter_once_a_member_or_a_removed_id_is_not_added_and_removing_retires()
    {
        var founding = new MemberConfiguration([A, B], []);
        Assert.Same(founding, founding.Add(A));
        var removed = (MemberConfiguration)founding.Remove(B);
        Assert.Equal([A], removed.Members);
        Assert.Equal([B], removed.Retired);
        Assert.Same(removed, removed.Add(B));
        Assert.Same(removed, removed.Remove(B));
        var added = (MemberConfiguration)removed.Add(C);
        Assert.Equal(new HashSet<EndPoint> { A, C }, added.Members);
        Assert.Equal([B], added.Retired);
    }

    [Fact]
    public void A_configuration_decodes_to_the_same_and_every_flipped_bit_is_refused_with_its_source()
    {
        var configuration = new MemberConfiguration([A, C], [B]);
        var decoded = MemberConfiguration.Decode(configuration.Bytes.Span, "test");
        Assert.Equal(configuration.Members, decoded.Members);
        Assert.Equal(configuration.Retired, decoded.Retired);
        Assert.Equal(configuration.Bytes.ToArray(), decoded.Bytes.ToArray());
        for (var bit = 0; bit < configuration.Bytes.Length * 8; bit++)
        {
            var damaged = configuration.Bytes.ToArray();
            damaged[bit / 8] ^= (byte)(1 << (bit % 8));
            var refused = Assert.Throws<CorruptMembershipException>(() => MemberConfiguration.Decode(damaged, "entry 7"));
            Assert.Equal("entry 7", refused.Location);
        }

        Assert.Throws<CorruptMembershipException>(() => MemberConfiguration.Decode(configuration.Bytes.Span[..^1], "short"));
    }

    [Fact]
    public async Task The_store_keeps_the_newest_version_across_a_reopen_and_refuses_older_ones()
    {
        using var directory = new TestDirectory("membership-store");
        using (var store = MembershipStore.Open(directory.Path, [A, B]))
        {
            Assert.Equal(new HashSet<EndPoint> { A, B }, store.Current.Members);
            IClusterConfiguration<EndPoint>? announced = null;
            store.ConfigurationChanged += (configuration, _) =>
            {
                announced = configuration;
                return ValueTask.CompletedTask;
            };
            var next = (MemberConfiguration)store.Current.Add(C);
            Assert.True(await store.SaveConfigurationAsync(next, configurationVersion: 12));
            Assert.Equal(next.Members, announced!.Members);
            // A replay of an older entry, or a resend of the same one, changes nothing.
            Assert.False(await store.SaveConfigurationAsync(new MemberConfiguration([A], []), configurationVersion: 5));
            Assert.False(await store.SaveConfigurationAsync(new MemberConfiguration([A], []), configurationVersion: 12));
        }

        // Reopened: the file, not the founding list given again, is the membership.
        using (var reopened = MembershipStore.Open(directory.Path, [A]))
        {
            Assert.Equal(new HashSet<EndPoint> { A, B, C }, reopened.Current.Members);
            var (_, version) = await ((IClusterConfigurationStorage)reopened).LoadConfigurationAsync();
            Assert.Equal(12, version);
            Assert.False(await reopened.SaveConfigurationAsync(new MemberConfiguration([A], []), configurationVersion: 11));
        }
    }

    [Fact]
    public async Task A_joining_node_starts_with_no_members_and_takes_the_first_configuration_it_is_sent()
    {
        using var directory = new TestDirectory("membership-join");
        using (var store = MembershipStore.Open(directory.Path, []))
        {
            Assert.Empty(store.Current.Members);
            Assert.False(File.Exists(directory.File(MembershipStore.FileName)));
            // The leader's founding configuration has version 0.
            Assert.True(await store.SaveConfigurationAsync(new MemberConfiguration([A, B], []), configurationVersion: 0));
        }

        using var reopened = MembershipStore.Open(directory.Path, []);
        Assert.Equal(new HashSet<EndPoint> { A, B }, reopened.Current.Members);
    }

    [Fact]
    public void A_damaged_members_file_is_refused_naming_the_file()
    {
        using var directory = new TestDirectory("membership-damaged");
        MembershipStore.Open(directory.Path, [A, B]).Dispose();
        var path = directory.File(MembershipStore.FileName);
        var bytes = File.ReadAllBytes(path);
        bytes[3] ^= 0x10;
        File.WriteAllBytes(path, bytes);
        var refused = Assert.Throws<CorruptMembershipException>(() => MembershipStore.Open(directory.Path, [A, B]));
        Assert.Equal(path, refused.Location);
        Assert.StartsWith($"{path} is not a valid Cairn.Cluster configuration (at byte ", refused.Message);
        File.WriteAllBytes(path, bytes[..5]);
        Assert.Equal(path, Assert.Throws<CorruptMembershipException>(() => MembershipStore.Open(directory.Path, [A, B])).Location);
    }

    [Fact]
    public void Options_take_no_founding_members_for_a_joining_node_and_refuse_addresses_the_codec_cannot_write()
    {
        new ClusterNodeOptions { DirectoryPath = "x", LocalEndPoint = A, Members = [] }.Validate();
        new ClusterNodeOptions { DirectoryPath = "x", LocalEndPoint = A, Members = [A, B, C] }.Validate();
        Assert.Throws<ArgumentException>(() => new ClusterNodeOptions { DirectoryPath = "x", LocalEndPoint = A, Members = [B, C] }.Validate());
        var unsupported = new System.Net.Sockets.UnixDomainSocketEndPoint("/tmp/cairn-test.sock");
        Assert.Throws<ArgumentException>(() => new ClusterNodeOptions { DirectoryPath = "x", LocalEndPoint = unsupported, Members = [] }.Validate());
    }
}
