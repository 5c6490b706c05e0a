using Cairn.Cli.Tests.Support;

namespace Cairn.Cli.Tests;

public class DumpCommandTests
{
    [Fact]
    public void Prints_a_tree_in_key_order_one_entry_per_line()
    {
        using var sample = new SampleEnvironment("cli-dump");

        var result = CliRun.Run("dump", sample.Path, "--tree", "users");

        Assert.True(result.ExitCode == 0, result.ToString());
        var lines = result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(200, lines.Length);
        Assert.Equal("user:0000\t{\"name\":\"user 0\",\"city\":\"Zürich\"}", lines[0]);
        Assert.Equal(lines.Order(StringComparer.Ordinal), lines);
        Assert.Contains("200 entries of tree 'users' (200 in all)", result.Error);
    }

    [Fact]
    public void Takes_a_prefix_and_a_limit()
    {
        using var sample = new SampleEnvironment("cli-dump-prefix");

        var result = CliRun.Run("dump", sample.Path, "-t", "users", "--prefix", "user:01", "--limit", "3");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Equal(["user:0100", "user:0101", "user:0102"], result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.Split('\t')[0]));

        var none = CliRun.Run("dump", sample.Path, "-t", "users", "--prefix", "nobody");
        Assert.True(none.ExitCode == 0, none.ToString());
        Assert.Empty(none.Output);
    }

    [Fact]
    public void Escapes_what_is_not_text_and_prints_hex()
    {
        using var sample = new SampleEnvironment("cli-dump-bytes");

        var utf8 = CliRun.Run("dump", sample.Path, "--tree", "bytes");
        Assert.True(utf8.ExitCode == 0, utf8.ToString());
        Assert.Equal($"\\x00\\xff\\x10\t\\t\\n\\\\A{Environment.NewLine}tab\\tkey\tline\\nbreak{Environment.NewLine}", utf8.Output);

        var hex = CliRun.Run("dump", sample.Path, "--tree", "bytes", "--format", "hex", "--prefix-hex", "00 ff");
        Assert.True(hex.ExitCode == 0, hex.ToString());
        Assert.Equal($"00ff10\t090a5c41{Environment.NewLine}", hex.Output);
    }

    [Fact]
    public void A_tree_that_does_not_exist_is_a_usage_error_listing_the_trees()
    {
        using var sample = new SampleEnvironment("cli-dump-missing");

        var result = CliRun.Run("dump", sample.Path, "--tree", "orders");

        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains("there is no tree 'orders'; the trees are: 'bytes', 'marked', 'users'", result.Error);
    }
}
