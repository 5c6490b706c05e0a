using Cairn.Pal;
using Cairn.Pal.Interop;
using Cairn.Pal.Testing;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

/// <summary>
/// The two ways a shared journal's hard link can fail that the engine must tell apart: across file
/// systems (EXDEV) and at the file's link limit (EMLINK).
/// </summary>
[Collection(NativeFaultCollection.Name)]
public class LinkErrorTests
{
    private const int EXDEV = 18;
    private const int EMLINK = 31;

    /// <summary>
    /// A branch links its root's journal into its own Journals folder; with the fault armed for that
    /// new link, the link fails with the typed error, names the new link, creates nothing, and the
    /// fault is spent: the next link goes through.
    /// </summary>
    [Theory]
    [InlineData(EXDEV, PalStatus.CrossDevice, typeof(PalCrossDeviceException))]
    [InlineData(EMLINK, PalStatus.TooManyLinks, typeof(PalTooManyLinksException))]
    public void Armed_link_fault_throws_its_typed_error_naming_the_new_link_once(int osError, PalStatus status, Type expected)
    {
        using var dir = new TestDirectory("link-fault");
        var journal = dir.File("root-journal");
        var branch = Path.Combine(dir.Path, "Journals", "root-journal");
        File.WriteAllText(journal, "entries");
        Directory.CreateDirectory(Path.GetDirectoryName(branch)!);
        try
        {
            PalFaultInjection.Arm(PalFaultKind.LinkError, osError: osError, pathFilter: branch);
            var error = (PalIOException)Assert.Throws(expected, () => PalFileSystem.HardLink(journal, branch));

            Assert.Equal(status, error.Status);
            Assert.Equal(osError, error.OsError);
            Assert.Contains($"hard-linking as '{branch}'", error.Message);
            Assert.False(File.Exists(branch));
            Assert.Equal(1, PalFileSystem.LinkCount(journal));

            PalFileSystem.HardLink(journal, branch);
            Assert.Equal(2, PalFileSystem.LinkCount(journal));
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
    }

    [Theory]
    [InlineData(EXDEV, PalStatus.CrossDevice)]
    [InlineData(EMLINK, PalStatus.TooManyLinks)]
    public void Native_classification_matches_the_managed_status(int osError, PalStatus expected)
    {
        PalLibrary.EnsureInitialized();
        Assert.Equal((int)PalStatus.Ok, NativeMethods.cairn_classify_error(osError, out int status, out _));
        Assert.Equal(expected, (PalStatus)status);
    }

    [Theory]
    [InlineData(PalStatus.CrossDevice, EXDEV, typeof(PalCrossDeviceException), "Not on the same file system")]
    [InlineData(PalStatus.TooManyLinks, EMLINK, typeof(PalTooManyLinksException), "Too many links")]
    public void Status_maps_to_its_exception_and_description(PalStatus status, int osError, Type expected, string description)
    {
        var error = PalErrors.Create(status, osError, "hard-linking as 'branch/journal'", "root/journal");

        Assert.IsType(expected, error);
        Assert.Equal(status, error.Status);
        Assert.Equal(osError, error.OsError);
        Assert.Equal("root/journal", error.FilePath);
        Assert.StartsWith($"{description} during hard-linking as 'branch/journal' on 'root/journal' (OS error {osError}", error.Message);
    }
}
