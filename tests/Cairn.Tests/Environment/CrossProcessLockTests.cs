using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>The data file's lock keeps a second process out, and goes away with its holder.</summary>
public class CrossProcessLockTests
{
    [Fact]
    public void Another_process_cannot_open_an_environment_this_one_holds()
    {
        using var dir = new TestDirectory("lock-other");
        using (StorageEnvironment.Open(new StorageOptions(dir.Path)))
        {
            var output = ChildProcess.Run("try-open", dir.Path);
            Assert.StartsWith("locked:", output);
            Assert.Contains(dir.Path, output);
        }
        Assert.StartsWith("opened", ChildProcess.Run("try-open", dir.Path));
    }

    [Fact]
    public void This_process_cannot_open_an_environment_another_holds_until_it_exits()
    {
        using var dir = new TestDirectory("lock-child");
        using var holder = ChildProcess.Start("hold-open", dir.Path);
        try
        {
            Assert.Equal("opened", holder.StandardOutput.ReadLine());
            Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(new StorageOptions(dir.Path) { LockWaitTimeout = TimeSpan.Zero }));
        }
        finally
        {
            holder.StandardInput.Close();
            Assert.True(holder.WaitForExit(TimeSpan.FromMinutes(1)));
        }
        using var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
    }
}
