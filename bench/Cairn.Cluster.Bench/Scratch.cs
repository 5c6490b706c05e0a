namespace Cairn.Cluster.Bench;

/// <summary>A folder under the repository's <c>.scratch/</c> (real disk, git-ignored), deleted on dispose.</summary>
internal sealed class Scratch : IDisposable
{
    public Scratch(string name)
    {
        Path = System.IO.Path.Combine(RepositoryRoot(), ".scratch", "cluster-bench", $"{name}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string Sub(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        if (Directory.Exists(Path))
            Directory.Delete(Path, recursive: true);
    }

    private static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(System.IO.Path.Combine(dir.FullName, "Storage.sln")))
                return dir.FullName;
        }

        throw new DirectoryNotFoundException($"No Storage.sln above {AppContext.BaseDirectory}: run the bench from a build inside the repository.");
    }
}
