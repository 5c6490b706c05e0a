namespace Cairn.Demo;

internal sealed record DemoOptions(string Directory, int SmallWrites, int LargeWrites, int EngineKeys, int Commits, TimeSpan CrashWriterRunTime, bool Keep,
    int SharedJournalRounds)
{
    public static DemoOptions Parse(string[] args)
    {
        string directory = Path.Combine(RepositoryRoot(), ".scratch", "demo");
        int small = 2000, large = 300, engineKeys = 200_000, commits = 3000;
        var crashRun = TimeSpan.FromSeconds(2);
        bool keep = false;
        int sharedJournalRounds = 0;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--dir": directory = args[++i]; break;
                case "--small-writes": small = int.Parse(args[++i]); break;
                case "--large-writes": large = int.Parse(args[++i]); break;
                case "--engine-keys": engineKeys = int.Parse(args[++i]); break;
                case "--commits": commits = int.Parse(args[++i]); break;
                case "--crash-after-ms": crashRun = TimeSpan.FromMilliseconds(int.Parse(args[++i])); break;
                case "--keep": keep = true; break;
                case "--shared-journal-rounds": sharedJournalRounds = int.Parse(args[++i]); break;
                default: throw new ArgumentException($"Unknown argument '{args[i]}'. Use --dir PATH, --small-writes N, --large-writes N, --engine-keys N, --commits N, --crash-after-ms N, --keep, --shared-journal-rounds N.");
            }
        }
        return new DemoOptions(Path.GetFullPath(directory), small, large, engineKeys, commits, crashRun, keep, sharedJournalRounds);
    }

    /// <summary>The repository root (where Storage.sln is), so scratch data lands in its ignored .scratch folder on the real disk.</summary>
    private static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Storage.sln")))
                return dir.FullName;
        }
        return System.IO.Directory.GetCurrentDirectory();
    }
}
