namespace Cairn.Stress.Campaigns;

/// <summary>How the parent reopens a cycle's environments to check them.</summary>
internal enum CheckMode
{
    /// <summary>Each environment alone (<see cref="StorageEnvironment.Open"/>), the root first.</summary>
    RootFirstAlone,
    /// <summary>Each branch alone first (its root not open), then the root.</summary>
    BranchesFirstAlone,
    /// <summary>The root, then <see cref="StorageEnvironment.OpenBranch"/> for each branch: the group again, committing into all at once.</summary>
    AsGroup,
}
