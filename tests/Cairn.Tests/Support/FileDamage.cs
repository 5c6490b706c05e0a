namespace Cairn.Tests.Support;

/// <summary>Damage a test does to a closed file, as a bad disk or a stray write would.</summary>
public static class FileDamage
{
    /// <summary>Flips the bits of <paramref name="mask"/> in the byte at <paramref name="offset"/>.</summary>
    public static void FlipBits(string path, long offset, byte mask = 0x40)
    {
        using var file = File.Open(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        int b = file.ReadByte();
        file.Position = offset;
        file.WriteByte((byte)(b ^ mask));
    }

    /// <summary>
    /// Damages the payload of the last entry of <paramref name="journal"/> (found by walking the entries by their
    /// headers: magic, payload size; docs/on-disk-format.md, "Journal entries") and returns where it starts and its
    /// transaction: a damaged last entry whose header is intact.
    /// </summary>
    public static (long Offset, long TransactionId) DamageLastJournalEntry(string journal)
    {
        const ulong magic = 0x31454A4E52494143; // CAIRNJE1
        const int headerSize = 192, alignment = 4096;
        byte[] bytes = File.ReadAllBytes(journal);
        long last = -1;
        for (long offset = 0; offset + headerSize <= bytes.Length && BitConverter.ToUInt64(bytes, (int)offset) == magic; )
        {
            last = offset;
            offset += (headerSize + BitConverter.ToInt64(bytes, (int)offset + 56) + alignment - 1) / alignment * alignment;
        }
        Assert.True(last >= 0, $"no entry in {journal}");
        FlipBits(journal, last + headerSize + 1);
        return (last, BitConverter.ToInt64(bytes, (int)last + 16));
    }
}
