using Cairn.Stress.Campaigns;
using Cairn.Tests.Support;

namespace Cairn.Tests.Harness;

/// <summary>
/// The campaign's copy of a closed environment waits for the data file's lock as the engine's opens do: the kernel
/// may keep a killed process's lock until it has torn down its io_uring (a CI run once copied the root of a journal
/// group too soon and failed). Here an environment open in this process stands for the dying owner.
/// </summary>
public class KilledOwnerLockTests
{
    private static readonly TimeSpan s_longEnough = TimeSpan.FromMinutes(2);

    [Fact]
    public async Task The_lock_is_taken_only_once_the_owner_has_let_go_and_keeps_writers_out_while_held()
    {
        using var dir = new TestDirectory("killed-owner-lock");
        string dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        var owner = StorageEnvironment.Open(new StorageOptions(dir.Path));

        var acquiring = Task.Run(() => KilledOwnerLock.Acquire(dataFile, s_longEnough));
        await Task.Delay(100);
        Assert.False(acquiring.IsCompleted, "the lock was taken while the environment had its data file open");

        owner.Dispose();
        using (await acquiring.WaitAsync(s_longEnough))
        {
            var refused = Assert.Throws<EnvironmentLockedException>(
                () => StorageEnvironment.Open(new StorageOptions(dir.Path) { LockWaitTimeout = TimeSpan.Zero }));
            Assert.Equal(dir.Path, refused.Directory);
        }
        StorageEnvironment.Open(new StorageOptions(dir.Path) { LockWaitTimeout = TimeSpan.Zero }).Dispose();
    }

    [Fact]
    public void An_owner_that_never_lets_go_is_a_campaign_failure_naming_the_file()
    {
        using var dir = new TestDirectory("killed-owner-lock-held");
        string dataFile = Path.Combine(dir.Path, StorageEnvironment.DataFileName);
        using var owner = StorageEnvironment.Open(new StorageOptions(dir.Path));

        var failure = Assert.Throws<CampaignFailure>(() => KilledOwnerLock.Acquire(dataFile, TimeSpan.FromMilliseconds(50)));

        Assert.Contains(dataFile, failure.Message);
        Assert.Contains("still locked", failure.Message);
    }
}
