namespace Cairn.Cluster;

/// <summary>
/// Who issued a write and which of that client's writes it is. A retry carries the same id, so a node that already
/// applied it applies it no more (docs/cluster.md, "Retries"). Sequences of one client start at 1 and grow; a client
/// has at most one write outstanding at a time.
/// </summary>
/// <param name="Client">The client's session id, chosen once at random by the client.</param>
/// <param name="Sequence">The write's number within the session, from 1.</param>
public readonly record struct OperationId(Guid Client, long Sequence)
{
    /// <summary>Throws when the id cannot be carried by a command (an empty client id or a sequence below 1).</summary>
    public void Validate()
    {
        if (Client == Guid.Empty)
            throw new ArgumentException("An operation id needs a non-empty client id.", nameof(Client));
        if (Sequence < 1)
            throw new ArgumentOutOfRangeException(nameof(Sequence), Sequence, "Sequences start at 1.");
    }
}
