namespace Cairn.Tests.Support;

/// <summary>
/// A fresh directory under the repository's ignored .scratch folder, which is on the real disk
/// (tmpfs would make durability tests meaningless), removed on dispose.
/// </summary>
public sealed class TestDirectory : IDisposable
{
    public TestDirectory(string name)
    {
        Path = System.IO.Path.Combine(RepositoryRoot, ".scratch", "tests", $"{name}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }

    public static string RepositoryRoot { get; } = FindRepositoryRoot();

    private static string FindRepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (System.IO.File.Exists(System.IO.Path.Combine(dir.FullName, "Storage.sln")))
                return dir.FullName;
        }
        throw new InvalidOperationException($"No Storage.sln above {AppContext.BaseDirectory}: tests must run from the repository");
    }
}
