namespace Cairn.Cli;

internal static class Program
{
    private static int Main(string[] args) => CairnCli.Run(args, CliContext.ForConsole());
}
