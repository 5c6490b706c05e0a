using Cairn.Tests.Support;

namespace Cairn.Cli.Tests;

/// <summary>The README's layout table names every command of the tool (issue 30, item 7: it listed four of eight).</summary>
public class ReadmeCommandsTests
{
    [Fact]
    public void The_layout_table_lists_every_command()
    {
        string row = File.ReadAllLines(Path.Combine(TestDirectory.RepositoryRoot, "README.md"))
            .Single(line => line.StartsWith("| `src/Cli` |", StringComparison.Ordinal));
        var commands = CairnCli.CreateRoot(new CliContext(TextWriter.Null, TextWriter.Null, errorIsTerminal: false, CliContext.DefaultProgressDelay))
            .Subcommands.Select(c => c.Name).ToList();
        Assert.NotEmpty(commands);
        Assert.All(commands, name => Assert.Matches($@"[(, ]{name}[,)]", row));
    }
}
