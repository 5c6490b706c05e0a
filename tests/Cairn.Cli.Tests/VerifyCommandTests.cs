using System.Text.Json;
using Cairn.Cli.Tests.Support;
using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

public class VerifyCommandTests
{
    [Fact]
    public void A_sound_environment_verifies()
    {
        using var sample = new SampleEnvironment("cli-verify");

        var result = CliRun.Run("verify", sample.Path);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.StartsWith($"ok: {sample.Path} as of transaction {sample.LastCommittedTransactionId:N0}: 3 trees, 203 entries", result.Output);

        var json = CliRun.Run("verify", sample.Path, "--json");
        Assert.True(json.ExitCode == 0, json.ToString());
        using var document = JsonDocument.Parse(json.Output);
        Assert.True(document.RootElement.GetProperty("ok").GetBoolean());
        Assert.Equal(203, document.RootElement.GetProperty("report").GetProperty("entries").GetInt64());
    }

    [Fact]
    public void A_damaged_page_fails_naming_the_file_and_offset()
    {
        using var sample = new SampleEnvironment("cli-verify-page");
        long page = sample.MarkedPage();
        long offset = page * StorageEnvironment.PageSize;
        FileDamage.FlipBits(sample.DataFile, offset + StorageEnvironment.PageSize - 5);

        var result = CliRun.Run("verify", sample.Path);

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains($"cairn verify: damaged: {sample.DataFile}", result.Error);
        Assert.Contains($"Page {page} of '{sample.DataFile}' (offset {offset}) is corrupt", result.Error);
        Assert.Empty(result.Output);

        var json = CliRun.Run("verify", sample.Path, "--json");
        Assert.True(json.ExitCode == 1, json.ToString());
        using var document = JsonDocument.Parse(json.Output);
        Assert.False(document.RootElement.GetProperty("ok").GetBoolean());
        Assert.Contains($"(offset {offset})", document.RootElement.GetProperty("error").GetString());
    }

    [Fact]
    public void Both_header_copies_damaged_fails_at_open_naming_the_file_and_offset()
    {
        using var sample = new SampleEnvironment("cli-verify-header");
        FileDamage.FlipBits(sample.DataFile, 40);
        FileDamage.FlipBits(sample.DataFile, StorageEnvironment.PageSize + 40);

        var result = CliRun.Run("verify", sample.Path);

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains($"cairn verify: damaged: {sample.DataFile} at offset 0{Environment.NewLine}", result.Error);
        Assert.Contains("both header copies are invalid", result.Error);
    }

    [Fact]
    public void A_damaged_journal_entry_before_valid_ones_fails_naming_the_journal_and_offset()
    {
        using var crashed = new UncleanEnvironment("cli-verify-journal", transactions: 5);
        FileDamage.FlipBits(crashed.FirstJournal, 100); // inside the first entry's 192-byte header

        var result = CliRun.Run("verify", crashed.Path);

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.Contains($"cairn verify: damaged: {crashed.FirstJournal} at offset 0{Environment.NewLine}  Journal '{crashed.FirstJournal}' at offset 0", result.Error);
    }

    [Fact]
    public void A_damaged_last_entry_is_damage_not_a_torn_tail_to_cut_off()
    {
        using var crashed = new UncleanEnvironment("cli-verify-tail", transactions: 5);
        var (offset, transaction) = crashed.DamageLastEntry();
        long journalBytes = new FileInfo(crashed.FirstJournal).Length;

        var result = CliRun.Run("verify", crashed.Path);

        Assert.True(result.ExitCode == 1, result.ToString());
        Assert.StartsWith($"cairn verify: damaged or torn: {crashed.FirstJournal}, offset {offset}, transaction {transaction}{Environment.NewLine}", result.Error);
        Assert.Contains("everything before it verifies (as of transaction 4)", result.Error);
        Assert.Equal(journalBytes, new FileInfo(crashed.FirstJournal).Length);

        var json = CliRun.Run("verify", crashed.Path, "--json");
        Assert.True(json.ExitCode == 1, json.ToString());
        using var document = JsonDocument.Parse(json.Output);
        Assert.False(document.RootElement.GetProperty("ok").GetBoolean());
        Assert.Equal(offset, document.RootElement.GetProperty("journalTail").GetProperty("offset").GetInt64());
        Assert.Equal(transaction, document.RootElement.GetProperty("journalTail").GetProperty("transactionId").GetInt64());
    }

    [Fact]
    public void Progress_goes_to_standard_error()
    {
        using var sample = new SampleEnvironment("cli-verify-progress");

        var result = CliRun.Run(["verify", sample.Path], showProgressAtOnce: true);

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains($"cairn: verifying {sample.Path} (every tree, page and free-space bit)... ", result.Error);
        Assert.Contains($"cairn: verifying {sample.Path} (every tree, page and free-space bit): done in ", result.Error);
        Assert.DoesNotContain("cairn:", result.Output);
    }
}
