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

    [Fact]
    public void Link_across_file_systems_throws_cross_device_naming_the_new_link()
    {
        using var dir = new TestDirectory("link-exdev");
        var (journal, branch) = RootJournal(dir);

        var error = LinkWithFault<PalCrossDeviceException>(EXDEV, journal, branch);

        Assert.Equal(PalStatus.CrossDevice, error.Status);
        Assert.Equal(EXDEV, error.OsError);
        Assert.False(File.Exists(branch));
        Assert.Equal(1, PalFileSystem.LinkCount(journal));
    }

    [Fact]
    public void Link_at_the_limit_throws_too_many_links_naming_the_new_link_and_fires_once()
    {
        using var dir = new TestDirectory("link-emlink");
        var (journal, branch) = RootJournal(dir);

        var error = LinkWithFault<PalTooManyLinksException>(EMLINK, journal, branch);

        Assert.Equal(PalStatus.TooManyLinks, error.Status);
        Assert.Equal(EMLINK, error.OsError);
        Assert.False(File.Exists(branch));
        PalFileSystem.HardLink(journal, branch); // the fault fired once
        Assert.Equal(2, PalFileSystem.LinkCount(journal));
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

    private static (string Journal, string Branch) RootJournal(TestDirectory dir)
    {
        var journal = dir.File("root-journal");
        var branch = Path.Combine(dir.Path, "Journals", "root-journal");
        File.WriteAllText(journal, "entries");
        Directory.CreateDirectory(Path.GetDirectoryName(branch)!);
        return (journal, branch);
    }

    /// <summary>Links <paramref name="existing"/> as <paramref name="newLink"/> with the link fault armed for the new link's path.</summary>
    private static T LinkWithFault<T>(int osError, string existing, string newLink) where T : PalIOException
    {
        try
        {
            PalFaultInjection.Arm(PalFaultKind.LinkError, osError: osError, pathFilter: newLink);
            var error = Assert.Throws<T>(() => PalFileSystem.HardLink(existing, newLink));
            Assert.Contains(newLink, error.Message);
            return error;
        }
        finally
        {
            PalFaultInjection.Disarm();
        }
    }
}
