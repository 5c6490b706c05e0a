using System.Buffers.Binary;
using System.Text;
using Cairn.Cluster.Commands;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Cluster.Tests.Cluster;

/// <summary>The batch entry (one Raft entry carrying the commands of a replication round) and the reading of either entry kind.</summary>
public sealed class BatchCodecTests
{
    private static readonly Gen<ClusterCommand> Commands =
        from client in ArbMap.Default.GeneratorFor<Guid>().Where(g => g != Guid.Empty)
        from sequence in Gen.Choose(1, int.MaxValue)
        from tree in Gen.Elements("orders", "t", "ünïcode-tree")
        from count in Gen.Choose(1, 5)
        from keys in Gen.ArrayOf(Gen.Choose(1, 40).SelectMany(n => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), n)), count)
        from values in Gen.ArrayOf(Gen.Choose(0, 100).SelectMany(n => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), n)), count)
        select new ClusterCommand(new OperationId(client, sequence), tree,
            keys.Select((key, i) => i % 3 == 2 ? ClusterOperation.Delete(key) : ClusterOperation.Put(key, values[i])).ToArray());

    private static readonly Gen<ClusterCommand[]> Batches = Gen.Choose(1, 12).SelectMany(n => Gen.ArrayOf(Commands, n));

    [Fact]
    public void Every_batch_decodes_to_its_commands_in_order() =>
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(150), Prop.ForAll(Batches.ToArbitrary(), batch =>
        {
            var decoded = EntryCodec.Decode(Encode(batch), 7);
            Assert.Equal(batch.Length, decoded.Length);
            for (var i = 0; i < batch.Length; i++)
            {
                Assert.Null(decoded[i].Refusal);
                Assert.Equal(batch[i].Id, decoded[i].Id);
                CommandCodecTests.AssertSame(batch[i], decoded[i].Command!);
            }
        }));

    [Fact]
    public void A_single_command_entry_written_before_batching_still_decodes()
    {
        var command = CommandCodecTests.Sample();
        var decoded = Assert.Single(EntryCodec.Decode(CommandCodec.Encode(command), 3));
        CommandCodecTests.AssertSame(command, decoded.Command!);
    }

    [Fact]
    public void Any_flipped_bit_is_refused_with_the_log_index_named() =>
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(200), Prop.ForAll(Batches.ToArbitrary(), ArbMap.Default.ArbFor<int>(), (batch, position) =>
        {
            var bytes = Encode(batch);
            var bit = (int)((uint)position % (uint)(bytes.Length * 8));
            bytes[bit / 8] ^= (byte)(1 << (bit % 8));
            var refused = Assert.Throws<CorruptCommandException>(() => EntryCodec.Decode(bytes, 42));
            Assert.Equal(42, refused.LogIndex);
            Assert.Contains("entry 42", refused.Message);
        }));

    [Fact]
    public void A_truncated_batch_is_refused()
    {
        var bytes = Encode([CommandCodecTests.Sample(), CommandCodecTests.Sample()]);
        for (var length = 0; length < bytes.Length; length++)
            Assert.Throws<CorruptCommandException>(() => EntryCodec.Decode(bytes.AsSpan(0, length), 3));
    }

    [Fact]
    public void An_unknown_entry_kind_with_a_valid_checksum_is_refused_at_its_first_byte()
    {
        var bytes = Encode([CommandCodecTests.Sample()]);
        bytes[0] = 9;
        CommandCodecTests.Reseal(bytes);
        var refused = Assert.Throws<CorruptCommandException>(() => EntryCodec.Decode(bytes, 5));
        Assert.Contains("unknown entry kind 9", refused.Message);
        Assert.Equal(0, refused.Offset);
        Assert.Equal(5, refused.LogIndex);
    }

    [Fact]
    public void Counts_and_lengths_that_do_not_fit_are_refused_at_their_offset_even_with_a_valid_checksum()
    {
        var bytes = Encode([CommandCodecTests.Sample(), CommandCodecTests.Sample()]);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(1), 1_000_000); // the command count
        CommandCodecTests.Reseal(bytes);
        Assert.Equal(1, Assert.Throws<CorruptCommandException>(() => EntryCodec.Decode(bytes, 5)).Offset);

        bytes = Encode([CommandCodecTests.Sample(), CommandCodecTests.Sample()]);
        var secondAt = 5 + 4 + BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(5));
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(secondAt), bytes.Length); // the second command's length
        CommandCodecTests.Reseal(bytes);
        var refused = Assert.Throws<CorruptCommandException>(() => EntryCodec.Decode(bytes, 5));
        Assert.Equal(secondAt, refused.Offset);
        Assert.Contains("command 1's length", refused.Message);

        bytes = Encode([CommandCodecTests.Sample()]);
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(1), 2); // says two commands, holds one
        CommandCodecTests.Reseal(bytes);
        Assert.IsType<CorruptCommandException>(Record.Exception(() => EntryCodec.Decode(bytes, 5)));
    }

    [Fact]
    public void A_command_the_checks_refuse_is_refused_alone_and_the_others_decode()
    {
        var good = CommandCodecTests.Sample();
        var bad = new ClusterCommand(new OperationId(Guid.NewGuid(), 4), "Xcluster.sessions", [ClusterOperation.Delete([1])]);
        var bytes = WithReservedTree(Encode([good, bad, good]));

        var decoded = EntryCodec.Decode(bytes, 5);
        Assert.Equal(3, decoded.Length);
        CommandCodecTests.AssertSame(good, decoded[0].Command!);
        Assert.Null(decoded[1].Command);
        Assert.Equal(bad.Id, decoded[1].Id);
        Assert.Contains(ClusterTrees.ReservedPrefix, decoded[1].Refusal);
        CommandCodecTests.AssertSame(good, decoded[2].Command!);
    }

    /// <summary>A batch whose commands are <paramref name="commands"/>, as the leader encodes it.</summary>
    internal static byte[] Encode(IEnumerable<ClusterCommand> commands)
        => BatchCodec.Encode(commands.Select(command =>
        {
            var body = new byte[CommandCodec.BodySize(command)];
            Assert.Equal(body.Length, CommandCodec.WriteBody(command, body));
            return body;
        }).ToArray());

    /// <summary>
    /// Turns the tree name "Xcluster.…" into "$cluster.…" (a name no command may carry, as a node of another version
    /// might still write) and seals the entry again: the framing stays valid, one command's content does not.
    /// </summary>
    internal static byte[] WithReservedTree(byte[] bytes)
    {
        var at = bytes.AsSpan().IndexOf(Encoding.UTF8.GetBytes("Xcluster."));
        Assert.True(at > 0);
        bytes[at] = (byte)'$';
        CommandCodecTests.Reseal(bytes);
        return bytes;
    }
}
