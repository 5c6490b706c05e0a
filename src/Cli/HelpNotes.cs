using System.CommandLine;
using System.CommandLine.Help;
using System.CommandLine.Invocation;

namespace Cairn.Cli;

/// <summary>
/// The longer text a command's <c>--help</c> prints after the generated usage: how it opens an environment and
/// what its exit codes mean. Kept out of the descriptions, which the root's help lists one per command.
/// </summary>
internal sealed class HelpNotes(HelpAction standard, IReadOnlyDictionary<Command, string> notes) : SynchronousCommandLineAction
{
    /// <summary>Makes every <c>--help</c> of <paramref name="root"/> print the notes of the command it is asked about.</summary>
    public static void Attach(RootCommand root, IReadOnlyDictionary<Command, string> notes)
    {
        var help = root.Options.OfType<HelpOption>().Single();
        help.Action = new HelpNotes((HelpAction)help.Action!, notes);
    }

    public override int Invoke(ParseResult parseResult)
    {
        int result = standard.Invoke(parseResult);
        if (notes.TryGetValue(parseResult.CommandResult.Command, out var note))
        {
            var output = parseResult.InvocationConfiguration.Output;
            output.WriteLine(note.TrimEnd());
            output.WriteLine();
        }
        return result;
    }
}
