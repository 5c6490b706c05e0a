using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Cairn.Journal;
using Cairn.Paging;
using Cairn.Trees;

namespace Cairn.Tests.Paging;

/// <summary>
/// Every struct written to disk has exactly the layout docs/on-disk-format.md gives it: its size, and
/// each field at the offset and with the size of its row in the document's byte table, with no field
/// the table leaves out and no gap. The document is read, not copied here, so neither can drift.
/// </summary>
public class OnDiskLayoutTests
{
    [Theory]
    [InlineData(typeof(FileHeader), "### File header", 152)]
    [InlineData(typeof(PageHeader), "### Page header (", 32)]
    [InlineData(typeof(TreeState), "### Tree state", 48)]
    [InlineData(typeof(RootRecord), "### Root record", 64)]
    [InlineData(typeof(JournalEntryHeader), "### Entry header", 192)]
    [InlineData(typeof(PageRecordHeader), "### Payload", 17)]
    [InlineData(typeof(LeafNodeHeader), "### Leaf node", 7)]
    [InlineData(typeof(BranchNodeHeader), "### Branch node", 11)]
    [InlineData(typeof(Cairn.Shipping.ShippedEntryFrame), "### Frame (", 64)]
    [InlineData(typeof(Cairn.Backups.BackupStreamHeader), "### Stream header (", 48)]
    [InlineData(typeof(Cairn.Backups.BackupRecordHeader), "### Record header (", 32)]
    [InlineData(typeof(Cairn.Backups.BackupEndRecord), "### End record (", 16)]
    public void Struct_matches_its_byte_table(Type type, string heading, int size)
    {
        Assert.Equal(size, SizeOf(type));
        Assert.Equal(size, (int)type.GetField("Size")!.GetValue(null)!);

        var documented = OnDiskFormatTable.Fields(heading);
        var declared = type.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
        Assert.Equal(declared.Select(f => f.Name).Order(), documented.Select(f => f.Name).Order());

        int expectedOffset = 0;
        foreach (var field in documented.OrderBy(f => f.Offset))
        {
            Assert.True(field.Offset == expectedOffset, $"{type.Name}: the table leaves bytes [{expectedOffset}, {field.Offset}) out");
            int offset = (int)Marshal.OffsetOf(type, field.Name);
            int fieldSize = SizeOf(type.GetField(field.Name, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)!.FieldType);
            Assert.True(offset == field.Offset, $"{type.Name}.{field.Name} is at {offset}, the table says {field.Offset}");
            Assert.True(fieldSize == field.Size, $"{type.Name}.{field.Name} is {fieldSize} bytes, the table says {field.Size}");
            expectedOffset += field.Size;
        }
        Assert.Equal(size, expectedOffset);
    }

    [Fact]
    public void File_header_checksum_covers_every_byte_before_it_and_its_magic_spells_CAIRNDB1()
    {
        Assert.Equal(144, FileHeader.ChecksummedLength);
        Assert.Equal(FileHeader.ChecksummedLength, (int)Marshal.OffsetOf<FileHeader>(nameof(FileHeader.Checksum)));
        Assert.Equal("CAIRNDB1", Encoding.ASCII.GetString(BitConverter.GetBytes(FileHeader.MagicValue)));
    }

    private static int SizeOf(Type type)
        => (int)typeof(Unsafe).GetMethod(nameof(Unsafe.SizeOf))!.MakeGenericMethod(type).Invoke(null, null)!;
}
