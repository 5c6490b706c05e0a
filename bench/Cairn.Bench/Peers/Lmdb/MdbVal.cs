using System.Runtime.InteropServices;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>LMDB's <c>MDB_val</c>: a length and a pointer, in that order, as in lmdb.h.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct MdbVal
{
    public nuint Size;
    public byte* Data;

    public MdbVal(byte* data, int size)
    {
        Data = data;
        Size = (nuint)size;
    }

    /// <summary>The bytes LMDB points at; valid until the transaction that returned them ends or writes.</summary>
    public readonly ReadOnlySpan<byte> AsSpan() => new(Data, (int)Size);
}
