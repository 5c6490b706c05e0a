using System.Runtime.InteropServices;
using System.Text;
using Cairn.Paging;

namespace Cairn.Trees;

/// <summary>
/// The root tree of trees: each named tree is an entry whose key is the UTF-8 name and whose value
/// is the tree's <see cref="TreeState"/>.
/// </summary>
internal static class TreeDirectory
{
    public const int MaxNameBytes = 512;

    public static bool TryRead(BTree root, string name, out TreeState state, string filePath)
    {
        Span<byte> key = stackalloc byte[MaxNameBytes];
        int length = Encode(name, key);
        if (!root.TryGet(key[..length], out var value))
        {
            state = default;
            return false;
        }
        if (value.Length != TreeState.Size)
            throw new StorageFormatException(filePath, root.State.RootPage * StorageConstants.PageSize,
                $"the root tree's entry for '{name}' is {value.Length} bytes, not a {TreeState.Size}-byte tree state");
        state = MemoryMarshal.Read<TreeState>(value);
        return true;
    }

    public static void Write(BTree root, string name, in TreeState state)
    {
        Span<byte> key = stackalloc byte[MaxNameBytes];
        int length = Encode(name, key);
        root.Put(key[..length], MemoryMarshal.AsBytes(new ReadOnlySpan<TreeState>(in state)));
    }

    public static bool Remove(BTree root, string name)
    {
        Span<byte> key = stackalloc byte[MaxNameBytes];
        return root.Delete(key[..Encode(name, key)]);
    }

    public static string DecodeName(ReadOnlySpan<byte> key) => Encoding.UTF8.GetString(key);

    private static int Encode(string name, Span<byte> destination)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (Encoding.UTF8.GetByteCount(name) > MaxNameBytes)
            throw new ArgumentException($"Tree names are at most {MaxNameBytes} UTF-8 bytes.", nameof(name));
        return Encoding.UTF8.GetBytes(name, destination);
    }
}
