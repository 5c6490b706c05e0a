using System.Runtime.InteropServices;
using Cairn.Paging;
using Cairn.Tests.Hashing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>
/// The data file's format version (docs/on-disk-format.md): a new file is version 2, its checksums XXH3 as
/// the reference library computes them; a file of version 1 (XXH64 checksums, written by an earlier Cairn)
/// or of an unknown version is refused for its version, not reported as damaged, and left as it was.
/// </summary>
public class FormatVersionTests
{
    private const int PageSize = StorageConstants.PageSize;

    [Fact]
    public void A_new_data_file_has_format_version_2_and_the_documented_checksums()
    {
        using var dir = new TestDirectory("format-new");
        string dataFile = Populate(dir.Path);
        byte[] file = File.ReadAllBytes(dataFile);
        for (int slot = 0; slot < 2; slot++)
        {
            var header = file.AsSpan(slot * PageSize, FileHeader.Size);
            Assert.Equal(2, BitConverter.ToInt32(header[8..]));
            Assert.Equal(ReferenceXxHash.Xxh3(header[..144], FileHeader.MagicValue), BitConverter.ToUInt64(header[144..]));
        }

        int checkedPages = 0;
        for (int pageNumber = 2; pageNumber < file.Length / PageSize; pageNumber++)
        {
            var page = file.AsSpan(pageNumber * PageSize, PageSize);
            var header = MemoryMarshal.Read<PageHeader>(page);
            if (header.PageNumber != pageNumber || (header.Flags & PageFlags.Overflow) != 0)
                continue; // never written, or an overflow run (the values here are small)
            Assert.Equal(ReferenceXxHash.Xxh3(page[16..], (ulong)pageNumber), header.Checksum);
            checkedPages++;
        }
        Assert.True(checkedPages >= 3, $"only {checkedPages} pages checked"); // free-space directory, bitmap, trees
    }

    [Fact]
    public void A_data_file_of_format_version_1_is_refused_for_its_version()
    {
        using var dir = new TestDirectory("format-version-1");
        var (dataFile, error) = OpenWithBothCopiesAt(dir.Path, 1, static checksummed => ReferenceXxHash.Xxh64(checksummed, FileHeader.MagicValue));
        Assert.Contains("offset 0: format version 1 is not supported (this build reads 2)", error.Message);
        Assert.Contains($"offset {PageSize}: format version 1 is not supported (this build reads 2)", error.Message);

        // Only a header that holds its own version's checksum is taken for that version: damaged, it is damage.
        FileDamage.FlipBits(dataFile, PageSize + 40);
        error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path)));
        Assert.Contains("offset 0: format version 1 is not supported", error.Message);
        Assert.Contains($"offset {PageSize}: checksum mismatch", error.Message);
    }

    [Fact]
    public void A_data_file_of_an_unknown_version_is_refused_for_its_version()
    {
        using var dir = new TestDirectory("format-version-3");
        var (_, error) = OpenWithBothCopiesAt(dir.Path, 3, static checksummed => ReferenceXxHash.Xxh3(checksummed, FileHeader.MagicValue));
        Assert.Contains("offset 0: format version 3 is not supported (this build reads 2)", error.Message);
    }

    /// <summary>
    /// Populates an environment, gives both header copies <paramref name="version"/> sealed with <paramref name="seal"/>,
    /// and opens it: the open must fail naming the data file and leave it as it was.
    /// </summary>
    private static (string DataFile, StorageFormatException Error) OpenWithBothCopiesAt(string path, int version, Seal seal)
    {
        string dataFile = Populate(path);
        for (int slot = 0; slot < 2; slot++)
            SetVersion(dataFile, slot, version, seal);
        byte[] before = File.ReadAllBytes(dataFile);
        var error = Assert.Throws<StorageFormatException>(() => StorageEnvironment.Open(new StorageOptions(path)));
        Assert.Equal(dataFile, error.FilePath);
        Assert.True(before.AsSpan().SequenceEqual(File.ReadAllBytes(dataFile)), "the refused file was changed");
        return (dataFile, error);
    }

    /// <summary>An environment with a few keys, closed cleanly (every page in the data file); returns the data file's path.</summary>
    private static string Populate(string path)
    {
        using (var env = StorageEnvironment.Open(new StorageOptions(path)))
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 100; i++)
                tree.Put(Bytes.Key(i), Bytes.Value(i, 30));
            tx.Commit();
        }
        return Path.Combine(path, StorageEnvironment.DataFileName);
    }

    private delegate ulong Seal(ReadOnlySpan<byte> checksummed);

    /// <summary>Gives header copy <paramref name="slot"/> another format version, sealed with <paramref name="seal"/>'s checksum.</summary>
    private static void SetVersion(string dataFile, int slot, int version, Seal seal)
    {
        using var file = File.Open(dataFile, FileMode.Open, FileAccess.ReadWrite);
        byte[] bytes = new byte[FileHeader.Size];
        file.Position = (long)slot * PageSize;
        file.ReadExactly(bytes);
        var header = MemoryMarshal.Read<FileHeader>(bytes);
        header.FormatVersion = version;
        MemoryMarshal.Write(bytes, in header);
        header.Checksum = seal(bytes.AsSpan(0, FileHeader.ChecksummedLength));
        MemoryMarshal.Write(bytes, in header);
        file.Position = (long)slot * PageSize;
        file.Write(bytes);
    }
}
