using Cairn.Pal;
using Cairn.Pal.Testing;
using Cairn.Paging;
using Cairn.Tests.Support;

namespace Cairn.Tests.Recovery;

/// <summary>
/// The replay in two threads when the applier fails (a spill to the data file meets a device error, through the native
/// layer's fault hooks): the open throws that error, and what the reader judged meanwhile changes nothing on disk. In
/// one thread the failure came before the reader ever reached the tail; with two, the reader may have judged the tail
/// already, and its cut must wait for the applier.
/// </summary>
[Collection(NativeFaultCollection.Name)]
public sealed class TwoThreadReplayFaultTests : IDisposable
{
    private const int EIO = 5;

    public void Dispose() => PalFaultInjection.Disarm();

    [Fact]
    public void A_failure_of_the_applier_leaves_a_torn_tail_uncut_and_the_journals_after_it_in_place()
    {
        using var scene = new RecoveryScene("replay-two-threads-apply-fault");
        long[] offsets = scene.WriteJournal(1, scene.OnePageEntries(1, 2, 3, 4, 5));
        FileDamage.FlipBits(scene.JournalPath(1), offsets[4] + JournalRecoveryTests.PayloadByte); // transaction 5, torn
        scene.WriteJournal(2, [], size: 16 * 1024);
        long length = new FileInfo(scene.JournalPath(1)).Length;
        Assert.True(scene.DataFile.PageCount < 101, "the spill must grow the data file");
        // Room for one page: the second entry's page spills the first, growing the data file, and that growth fails.
        PalFaultInjection.Arm(PalFaultKind.AllocateError, osError: EIO, pathFilter: scene.DataFile.FilePath);

        var error = Assert.Throws<DeviceIOException>(() => scene.Recover(budgetBytes: StorageConstants.PageSize));

        Assert.Equal(EIO, error.OsError);
        Assert.Equal(length, new FileInfo(scene.JournalPath(1)).Length);
        Assert.True(File.Exists(scene.JournalPath(2)));
    }
}
