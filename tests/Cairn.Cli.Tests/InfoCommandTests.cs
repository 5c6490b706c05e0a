using System.Text.RegularExpressions;
using System.Text.Json;
using Cairn.Cli.Tests.Support;

namespace Cairn.Cli.Tests;

public class InfoCommandTests
{
    [Fact]
    public void Prints_the_environment_as_text()
    {
        using var sample = new SampleEnvironment("cli-info");

        var result = CliRun.Run("info", sample.Path);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains($"environment {sample.Path}", result.Output);
        Assert.Contains(sample.EnvironmentId.ToString(), result.Output);
        Assert.Contains($"last committed {sample.LastCommittedTransactionId:N0}", result.Output);
        Assert.Contains("replayed nothing", result.Output);
        Assert.True(Regex.IsMatch(result.Output, @"\n  users +200 +\d+ +\d+ +\d+ +0\r?\n"), result.ToString());
        Assert.Contains("trees (3)", result.Output);
        Assert.Contains("journal group  none in this process", result.Output);
    }

    [Fact]
    public void Prints_the_environment_as_json()
    {
        using var sample = new SampleEnvironment("cli-info-json");

        var result = CliRun.Run("info", sample.Path, "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(result.Output);
        var root = json.RootElement;
        Assert.Equal(sample.Path, root.GetProperty("directoryPath").GetString());
        Assert.Equal(sample.EnvironmentId, root.GetProperty("environmentId").GetGuid());
        Assert.Equal(sample.LastCommittedTransactionId, root.GetProperty("lastCommittedTransactionId").GetInt64());
        Assert.Equal(sample.LastCommittedTransactionId, root.GetProperty("lastSyncedTransactionId").GetInt64());
        Assert.Equal(StorageEnvironment.PageSize, root.GetProperty("pageSize").GetInt32());
        Assert.Equal("none", root.GetProperty("sharedJournalRole").GetString());
        var trees = root.GetProperty("trees").EnumerateArray().ToDictionary(t => t.GetProperty("name").GetString()!, t => t.GetProperty("entries").GetInt64());
        Assert.Equal(new Dictionary<string, long> { ["bytes"] = 2, ["marked"] = 1, ["users"] = 200 }, trees);
        long pages = root.GetProperty("highWaterMark").GetInt64();
        Assert.Equal(pages, root.GetProperty("pagesInUse").GetInt64() + root.GetProperty("freePages").GetInt64() + root.GetProperty("pagesWaitingForReaders").GetInt64());
        foreach (var journal in root.GetProperty("journals").EnumerateArray())
            Assert.Equal(1, journal.GetProperty("linkCount").GetInt64());
    }

    [Fact]
    public void An_environment_not_closed_cleanly_is_recovered_in_memory_and_says_what_was_replayed()
    {
        using var crashed = new UncleanEnvironment("cli-info-unclean", transactions: 5);

        var result = CliRun.Run("info", crashed.Path);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("last committed 5, flushed 0, synced 0", result.Output);
        Assert.Contains("replayed 5 transactions from the journals (in memory", result.Output);
        // Read-only: nothing was written back, so the next look replays the same again.
        Assert.Contains("replayed 5 transactions from the journals", CliRun.Run("info", crashed.Path).Output);
    }

    [Fact]
    public void A_damaged_or_torn_last_entry_is_named_in_text_and_json()
    {
        using var crashed = new UncleanEnvironment("cli-info-tail", transactions: 5);
        var (offset, transaction) = crashed.DamageLastEntry();
        string expected = $"damaged or torn: {crashed.FirstJournal}, offset {offset}, transaction {transaction}";

        var text = CliRun.Run("info", crashed.Path);
        Assert.True(text.ExitCode == 0, text.ToString());
        Assert.Matches($@"\n  journal tail +{Regex.Escape(expected)}: ", text.Output);
        Assert.Contains($"cairn info: warning: the journal ends in an entry that does not validate, left out of what is shown: {expected}", text.Error);

        var json = CliRun.Run("info", crashed.Path, "--json");
        Assert.True(json.ExitCode == 0, json.ToString());
        using var document = JsonDocument.Parse(json.Output);
        var tail = document.RootElement.GetProperty("journalTail");
        Assert.Equal(crashed.FirstJournal, tail.GetProperty("filePath").GetString());
        Assert.Equal(offset, tail.GetProperty("offset").GetInt64());
        Assert.Equal(transaction, tail.GetProperty("transactionId").GetInt64());
    }
}
