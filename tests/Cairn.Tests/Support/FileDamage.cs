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
}
