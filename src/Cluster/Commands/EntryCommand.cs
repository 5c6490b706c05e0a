namespace Cairn.Cluster.Commands;

/// <summary>
/// One command read from a log entry: its id, and either the command or why the command's own checks refuse it (a
/// batch entry's command that a node of another version wrote with limits this one does not accept). A refused
/// command is reported alone; the entry's other commands still apply.
/// </summary>
internal readonly record struct EntryCommand(OperationId Id, ClusterCommand? Command, string? Refusal)
{
    public static EntryCommand Of(ClusterCommand command) => new(command.Id, command, null);
}
