using System.Buffers.Binary;
using System.IO.Hashing;
using Cairn.Cluster.Commands;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Cluster.Tests.Cluster;

public sealed class CommandCodecTests
{
    private static readonly Gen<byte[]> Keys = Gen.Choose(1, 64).SelectMany(n => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), n));
    private static readonly Gen<byte[]> Values = Gen.Choose(0, 300).SelectMany(n => Gen.ArrayOf(ArbMap.Default.GeneratorFor<byte>(), n));

    private static readonly Gen<ClusterOperation> Operations =
        from isPut in ArbMap.Default.GeneratorFor<bool>()
        from key in Keys
        from value in Values
        select isPut ? ClusterOperation.Put(key, value) : ClusterOperation.Delete(key);

    private static readonly Gen<ClusterCommand> Commands =
        from client in ArbMap.Default.GeneratorFor<Guid>().Where(g => g != Guid.Empty)
        from sequence in Gen.Choose(1, int.MaxValue)
        from tree in Gen.Elements("orders", "t", "ünïcode-tree", new string('x', 200))
        from count in Gen.Choose(1, 20)
        from operations in Gen.ArrayOf(Operations, count)
        select new ClusterCommand(new OperationId(client, sequence * 3L), tree, operations);

    [Fact]
    public void Every_command_decodes_to_what_was_encoded() =>
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(200), Prop.ForAll(Commands.ToArbitrary(), command =>
        {
            var bytes = CommandCodec.Encode(command);
            Assert.Equal(CommandCodec.SizeOf(command), bytes.Length);
            AssertSame(command, CommandCodec.Decode(bytes, 7));
        }));

    [Fact]
    public void Any_flipped_bit_is_refused_with_the_log_index_named() =>
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(200), Prop.ForAll(Commands.ToArbitrary(), ArbMap.Default.ArbFor<int>(), (command, position) =>
        {
            var bytes = CommandCodec.Encode(command);
            var bit = (int)((uint)position % (uint)(bytes.Length * 8));
            bytes[bit / 8] ^= (byte)(1 << (bit % 8));
            var refused = Assert.Throws<CorruptCommandException>(() => CommandCodec.Decode(bytes, 42));
            Assert.Equal(42, refused.LogIndex);
            Assert.Contains("entry 42", refused.Message);
        }));

    [Fact]
    public void A_truncated_entry_is_refused()
    {
        var bytes = CommandCodec.Encode(Sample());
        for (var length = 0; length < bytes.Length; length++)
            Assert.Throws<CorruptCommandException>(() => CommandCodec.Decode(bytes.AsSpan(0, length), 3));
    }

    [Fact]
    public void Another_format_version_with_a_valid_checksum_is_refused_naming_it()
    {
        var bytes = CommandCodec.Encode(Sample());
        bytes[0] = 9;
        Reseal(bytes);
        var refused = Assert.Throws<CorruptCommandException>(() => CommandCodec.Decode(bytes, 5));
        Assert.Contains("format version 9", refused.Message);
        Assert.Equal(0, refused.Offset);
        // The shared base names the same place as the message does.
        Assert.Equal("Raft log entry 5", ((CorruptClusterDataException)refused).Location);
        Assert.StartsWith("Raft log entry 5 is not a valid Cairn.Cluster command (at byte 0): ", refused.Message);
    }

    [Fact]
    public void Lengths_that_run_past_the_entry_are_refused_even_with_a_valid_checksum()
    {
        var bytes = CommandCodec.Encode(Sample());
        // The operation count sits after the header (25 bytes), the tree length (2) and the tree ("orders", 6).
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(33), int.MaxValue);
        Reseal(bytes);
        var refused = Assert.Throws<CorruptCommandException>(() => CommandCodec.Decode(bytes, 5));
        Assert.Equal(33, refused.Offset);

        bytes = CommandCodec.Encode(Sample());
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(38), 1_000_000); // the first key's length
        Reseal(bytes);
        Assert.Equal(38, Assert.Throws<CorruptCommandException>(() => CommandCodec.Decode(bytes, 5)).Offset);
    }

    [Fact]
    public void A_command_refuses_what_no_node_could_apply()
    {
        var id = new OperationId(Guid.NewGuid(), 1);
        ClusterOperation[] one = [ClusterOperation.Delete([1])];
        Assert.Throws<ArgumentOutOfRangeException>(() => ClusterOperation.Put([], [1]));
        Assert.Throws<ArgumentOutOfRangeException>(() => ClusterOperation.Delete(new byte[ClusterOperation.MaxKeyBytes + 1]));
        Assert.Throws<ArgumentException>(() => new ClusterCommand(id, ClusterTrees.Sessions, one));
        Assert.Throws<ArgumentException>(() => new ClusterCommand(id, "t", []));
        Assert.Throws<ArgumentException>(() => new ClusterCommand(new OperationId(Guid.Empty, 1), "t", one));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ClusterCommand(new OperationId(Guid.NewGuid(), 0), "t", one));
    }

    internal static ClusterCommand Sample()
        => new(new OperationId(Guid.NewGuid(), 1), "orders", [ClusterOperation.Put([1, 2, 3], [4, 5]), ClusterOperation.Delete([9])]);

    internal static void Reseal(byte[] bytes)
        => BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(bytes.Length - 8), XxHash3.HashToUInt64(bytes.AsSpan(0, bytes.Length - 8)));

    internal static void AssertSame(ClusterCommand expected, ClusterCommand actual)
    {
        Assert.Equal(expected.Id, actual.Id);
        Assert.Equal(expected.Tree, actual.Tree);
        Assert.Equal(expected.Operations.Count, actual.Operations.Count);
        for (var i = 0; i < expected.Operations.Count; i++)
        {
            Assert.Equal(expected.Operations[i].Kind, actual.Operations[i].Kind);
            Assert.Equal(expected.Operations[i].Key, actual.Operations[i].Key);
            Assert.Equal(expected.Operations[i].Value, actual.Operations[i].Value);
        }
    }
}
