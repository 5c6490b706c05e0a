using Microsoft.Win32.SafeHandles;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>
/// Owns an <c>MDB_env*</c>. Transactions add a reference for their lifetime (once, not per call),
/// so closing the environment under a live transaction waits for it instead of freeing its map.
/// </summary>
internal sealed class SafeLmdbEnvironmentHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    public SafeLmdbEnvironmentHandle(nint env) : base(ownsHandle: true) => SetHandle(env);

    protected override bool ReleaseHandle()
    {
        LmdbNative.mdb_env_close(handle);
        return true;
    }
}
