namespace Cairn.Cluster.Commands;

/// <summary>
/// Reads a Raft log entry of either kind this build writes or has written: its first byte is <see cref="CommandCodec.Version"/>
/// (one command, the only kind before batching) or <see cref="BatchCodec.Kind"/> (the commands of one replication
/// round). Both end in the xxh3 of what precedes it, checked before the kind is trusted.
/// </summary>
internal static class EntryCodec
{
    /// <summary>The entry's commands in order, or <see cref="CorruptCommandException"/> naming <paramref name="logIndex"/> and the offset.</summary>
    public static EntryCommand[] Decode(ReadOnlySpan<byte> entry, long logIndex)
    {
        var content = CommandCodec.Unseal(entry, logIndex, 1 + CommandCodec.ChecksumBytes);
        return content[0] switch
        {
            CommandCodec.Version => [EntryCommand.Of(CommandCodec.Decode(entry, logIndex))],
            BatchCodec.Kind => BatchCodec.Decode(content, logIndex),
            _ => throw new CorruptCommandException(logIndex, 0,
                $"unknown entry kind {content[0]}; this build reads kinds {CommandCodec.Version} (one command) and {BatchCodec.Kind} (a batch)"),
        };
    }
}
