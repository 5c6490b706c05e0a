namespace Cairn.Tests.Support;

/// <summary>
/// Native fault hooks are process-wide, so tests that arm them run alone: no other test's I/O can
/// trip over an armed fault, and no two tests arm different faults at once.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class NativeFaultCollection
{
    public const string Name = "Native fault injection";
}
