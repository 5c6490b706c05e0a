namespace Cairn.Journal.Files;

/// <summary>
/// A journal group root's file cannot get a new name in this environment's folder because an older journal
/// there already is that file: recovery would read its entries twice. The entry goes to the environment's
/// own journal instead.
/// </summary>
internal sealed class JournalLinkRefusedException(string rootFile, string existingName)
    : IOException($"'{rootFile}' is already this environment's journal '{existingName}', which is not its newest: it is not linked again")
{
    public string ExistingName { get; } = existingName;
}
