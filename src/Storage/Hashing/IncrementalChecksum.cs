using System.IO.Hashing;

namespace Cairn.Hashing;

/// <summary>
/// <see cref="Checksums"/>' hash over bytes that arrive in pieces (a backup stream: a file's bytes as they are
/// copied, the whole stream as it is written or read), equal to <see cref="Checksums.Compute(ReadOnlySpan{byte}, ulong)"/>
/// of the pieces joined.
/// </summary>
internal sealed class IncrementalChecksum(ulong seed)
{
    private readonly XxHash3 _hash = new(unchecked((long)seed));

    public void Append(ReadOnlySpan<byte> data) => _hash.Append(data);

    public ulong Current => _hash.GetCurrentHashAsUInt64();
}
