namespace Cairn.Stress.Workload;

/// <summary>
/// What applying a workload transaction needs from a database. The engine (a write transaction) and the
/// expected state (<see cref="StressModel"/>) both implement it, so one piece of code,
/// <see cref="TransactionApplier"/>, decides what a transaction does to either.
/// </summary>
internal interface IStressStore
{
    bool TreeExists(string tree);

    void CreateTree(string tree);

    /// <summary>False if there was no such tree.</summary>
    bool DeleteTree(string tree);

    /// <summary>A copy of the value, or null if the key is absent.</summary>
    byte[]? Get(string tree, byte[] key);

    bool Contains(string tree, byte[] key);

    void Put(string tree, byte[] key, byte[] value);

    /// <summary>False if the key was absent.</summary>
    bool Delete(string tree, byte[] key);
}
