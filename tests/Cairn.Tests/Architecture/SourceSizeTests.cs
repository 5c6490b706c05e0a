using Cairn.Tests.Support;

namespace Cairn.Tests.Architecture;

/// <summary>
/// Sizes that keep the source readable (issue 26): no file of <c>src/</c> over 450 lines, and
/// <see cref="StorageEnvironment"/>, all its partial files together, under 700: a job that grows it belongs in a type of its own.
/// </summary>
public sealed class SourceSizeTests
{
    private static int Lines(string file) => File.ReadLines(file).Count();

    private static IEnumerable<string> SourceFiles(string folder)
        => Directory.EnumerateFiles(Path.Combine(TestDirectory.RepositoryRoot, folder), "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                && !f.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal));

    [Fact]
    public void No_source_file_is_over_450_lines()
    {
        var large = SourceFiles("src").Select(f => (File: f, Lines: Lines(f))).Where(f => f.Lines > 450).ToList();
        Assert.True(large.Count == 0, string.Join(System.Environment.NewLine, large.Select(f => $"{f.File}: {f.Lines} lines")));
    }

    [Fact]
    public void StorageEnvironment_is_under_700_lines_over_all_its_partial_files()
    {
        var parts = SourceFiles(Path.Combine("src", "Storage", "Api")).Where(f => Path.GetFileName(f).StartsWith("StorageEnvironment", StringComparison.Ordinal)).ToList();
        int total = parts.Sum(Lines);
        Assert.True(total < 700, $"StorageEnvironment has {total} lines in {parts.Count} files: " + string.Join(", ", parts.Select(f => $"{Path.GetFileName(f)} {Lines(f)}")));
    }
}
