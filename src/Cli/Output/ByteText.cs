using System.Globalization;
using System.Text;

namespace Cairn.Cli.Output;

/// <summary>
/// Keys and values as one line of text each, so a dump stays one entry per line whatever the bytes are:
/// hexadecimal, or UTF-8 with backslash escapes for tabs, line breaks, backslashes, other control characters and
/// bytes that are not UTF-8 (<c>\xNN</c>).
/// </summary>
internal static class ByteText
{
    public static string Hex(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(bytes);

    public static string Utf8(ReadOnlySpan<byte> bytes)
    {
        var text = new StringBuilder(bytes.Length);
        while (!bytes.IsEmpty)
        {
            if (Rune.DecodeFromUtf8(bytes, out var rune, out int consumed) != System.Buffers.OperationStatus.Done)
            {
                text.Append(CultureInfo.InvariantCulture, $"\\x{bytes[0]:x2}");
                bytes = bytes[1..];
                continue;
            }
            switch (rune.Value)
            {
                case '\\': text.Append(@"\\"); break;
                case '\t': text.Append(@"\t"); break;
                case '\n': text.Append(@"\n"); break;
                case '\r': text.Append(@"\r"); break;
                default:
                    if (Rune.IsControl(rune))
                    {
                        foreach (byte b in bytes[..consumed])
                            text.Append(CultureInfo.InvariantCulture, $"\\x{b:x2}");
                    }
                    else
                    {
                        text.Append(rune.ToString());
                    }
                    break;
            }
            bytes = bytes[consumed..];
        }
        return text.ToString();
    }

    /// <summary>Hex digits (spaces allowed between bytes) as bytes; null if they are not.</summary>
    public static byte[]? ParseHex(string hex)
    {
        string digits = hex.Replace(" ", "", StringComparison.Ordinal);
        if (digits.Length % 2 != 0)
            return null;
        try
        {
            return Convert.FromHexString(digits);
        }
        catch (FormatException)
        {
            return null;
        }
    }
}
