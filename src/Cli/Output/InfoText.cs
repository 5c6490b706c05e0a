namespace Cairn.Cli.Output;

/// <summary><see cref="EnvironmentInfo"/> as text for people.</summary>
internal static class InfoText
{
    public static void Write(TextWriter output, EnvironmentInfo info)
    {
        output.WriteLine($"environment {info.DirectoryPath}");
        var facts = new Table(("", false), ("", false));
        facts.Add("id", info.EnvironmentId.ToString());
        facts.Add("data file", $"{info.DataFilePath}, {Numbers.Size(info.DataFileBytes)} ({Numbers.Count(info.DataFileBytes / info.PageSize)} pages)");
        facts.Add("format", $"version {info.FormatVersion}, {Numbers.Count(info.PageSize)}-byte pages");
        facts.Add("transactions", $"last committed {Numbers.Count(info.LastCommittedTransactionId)}, flushed {Numbers.Count(info.LastFlushedTransactionId)}, " +
                                  $"synced {Numbers.Count(info.LastSyncedTransactionId)}");
        facts.Add("this open", info.TransactionsReplayedAtOpen == 0
            ? "replayed nothing (the environment was closed cleanly, or had nothing unsynced)"
            : $"replayed {Numbers.Count(info.TransactionsReplayedAtOpen)} transactions from the journals (in memory: the files are left as they are)");
        if (info.JournalTail is { } tail)
            facts.Add("journal tail", $"{tail}: {tail.Problem}");
        facts.Add("pages", $"{Numbers.Count(info.HighWaterMark)} allocated ({Numbers.Size(info.HighWaterMark * info.PageSize)}): {Numbers.Count(info.PagesInUse)} in use, " +
                           $"{Numbers.Count(info.FreePages)} free, {Numbers.Count(info.PagesWaitingForReaders)} waiting for readers");
        facts.Add("journal group", JournalGroup(info));
        facts.WriteTo(output, headings: false);

        output.WriteLine();
        output.WriteLine($"trees ({info.Trees.Count})");
        if (info.Trees.Count > 0)
        {
            var trees = new Table(("name", false), ("entries", true), ("depth", true), ("branch pages", true), ("leaf pages", true), ("overflow pages", true));
            foreach (var tree in info.Trees)
                trees.Add(tree.Name, Numbers.Count(tree.Entries), tree.Depth.ToString(), Numbers.Count(tree.BranchPages), Numbers.Count(tree.LeafPages),
                          Numbers.Count(tree.OverflowPages));
            trees.WriteTo(output);
        }

        output.WriteLine();
        output.WriteLine($"journals ({info.Journals.Count} files, {Numbers.Size(info.Journals.Sum(j => j.Bytes))})");
        if (info.Journals.Count > 0)
        {
            var journals = new Table(("file", false), ("kind", false), ("number", true), ("size", true), ("links", true));
            foreach (var journal in info.Journals)
                journals.Add(journal.FileName, journal.IsRecyclable ? "kept for reuse" : "journal", Numbers.Count(journal.Number), Numbers.Size(journal.Bytes),
                             journal.LinkCount.ToString());
            journals.WriteTo(output);
        }
    }

    private static string JournalGroup(EnvironmentInfo info)
    {
        string role = info.SharedJournalRole switch
        {
            SharedJournalRole.Root => $"root of {info.OpenBranches} open branch(es)",
            SharedJournalRole.Branch => info.SharesRootJournal ? "branch, writing through its root's journal" : "branch, writing its own journal",
            _ => "none in this process",
        };
        int shared = info.Journals.Count(j => j.LinkCount > 1);
        return shared == 0 ? role : $"{role}; {shared} journal file(s) have other names (shared with a root or branches)";
    }
}
