using System.CommandLine;
using System.CommandLine.Help;
using Cairn.Cli.Commands;

namespace Cairn.Cli;

/// <summary>
/// The <c>cairn</c> command: its subcommands, the parse, and the exit code. Usage errors (2) are decided here,
/// before any command runs; each command's own failures go through <see cref="Failures"/>.
/// </summary>
internal static class CairnCli
{
    public static int Run(string[] args, CliContext context)
    {
        var root = CreateRoot(context);
        var parse = root.Parse(args);
        if (parse.Errors.Count > 0 && parse.Action is not HelpNotes)
        {
            foreach (var error in parse.Errors)
                context.Error.WriteLine($"cairn: {error.Message}");
            context.Error.WriteLine("Run 'cairn --help', or 'cairn COMMAND --help', for usage.");
            return ExitCodes.Usage;
        }
        return parse.Invoke(new InvocationConfiguration { Output = context.Output, Error = context.Error, EnableDefaultExceptionHandler = false });
    }

    public static RootCommand CreateRoot(CliContext context)
    {
        var root = new RootCommand("cairn: look at Cairn storage environments on disk and at their I/O statistics.");
        var notes = new Dictionary<Command, string> { [root] = EnvironmentAccess.HelpNote + "\n\n" + ExitCodes.Help };
        void Add(Command command, string note)
        {
            root.Subcommands.Add(command);
            notes[command] = note + "\n\n" + EnvironmentAccess.HelpNote + "\n\n" + ExitCodes.Help;
        }
        Add(InfoCommand.Create(context), InfoCommand.Notes);
        Add(VerifyCommand.Create(context), VerifyCommand.Notes);
        Add(DumpCommand.Create(context), DumpCommand.Notes);
        Add(IoStatsCommand.Create(context), IoStatsCommand.Notes);
        Add(BackupCommand.Create(context), BackupCommand.Notes);
        Add(RestoreCommand.Create(context), RestoreCommand.Notes);
        Add(CompactCommand.Create(context), CompactCommand.Notes);
        root.Subcommands.Add(ClusterStatusCommand.Create(context));
        notes[root.Subcommands[^1].Subcommands[0]] = ClusterStatusCommand.Notes + "\n\n" + ExitCodes.Help;
        root.Subcommands.Add(StressCommand.Create(context));
        notes[root.Subcommands[^1]] = StressCommand.Notes + "\n\n" + ExitCodes.Help;
        HelpNotes.Attach(root, notes);
        return root;
    }
}
