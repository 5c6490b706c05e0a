using System.Security.Cryptography;
using Cairn.Pal;

namespace Cairn.Tests.Support;

/// <summary>
/// Everything a folder holds, to show a command changed nothing: every directory and file under it by relative
/// name, each file's size, hard-link count and a hash of its bytes.
/// </summary>
public sealed record FolderSnapshot(IReadOnlyList<string> Entries)
{
    public static FolderSnapshot Take(string root)
    {
        var entries = new List<string>();
        foreach (var directory in Directory.EnumerateDirectories(root, "*", SearchOption.AllDirectories))
            entries.Add($"dir  {Path.GetRelativePath(root, directory)}");
        foreach (var file in Directory.EnumerateFiles(root, "*", SearchOption.AllDirectories))
        {
            byte[] bytes = File.ReadAllBytes(file);
            entries.Add($"file {Path.GetRelativePath(root, file)} size {bytes.Length} links {PalFileSystem.LinkCount(file)} " +
                        $"sha256 {Convert.ToHexString(SHA256.HashData(bytes))}");
        }
        entries.Sort(StringComparer.Ordinal);
        return new FolderSnapshot(entries);
    }

    /// <summary>Fails listing what differs between <paramref name="before"/> and <paramref name="after"/>.</summary>
    public static void AssertUnchanged(FolderSnapshot before, FolderSnapshot after, string what)
    {
        var gone = before.Entries.Except(after.Entries).ToList();
        var added = after.Entries.Except(before.Entries).ToList();
        Assert.True(gone.Count == 0 && added.Count == 0,
            $"{what} changed the folder:\n  before only:\n    {string.Join("\n    ", gone)}\n  after only:\n    {string.Join("\n    ", added)}");
    }
}
