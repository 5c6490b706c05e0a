using Cairn.Pal;
using Cairn.Pal.Interop;
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

    [Theory]
    [InlineData(EXDEV, PalStatus.CrossDevice)]
    [InlineData(EMLINK, PalStatus.TooManyLinks)]
    public void Native_classification_matches_the_managed_status(int osError, PalStatus expected)
    {
        PalLibrary.EnsureInitialized();
        Assert.Equal((int)PalStatus.Ok, NativeMethods.cairn_classify_error(osError, out int status, out _));
        Assert.Equal(expected, (PalStatus)status);
    }

    [Fact]
    public void Cross_device_status_maps_to_its_exception()
    {
        var error = PalErrors.Create(PalStatus.CrossDevice, EXDEV, "hard-linking as 'branch/journal'", "root/journal");

        var crossDevice = Assert.IsType<PalCrossDeviceException>(error);
        Assert.Equal(PalStatus.CrossDevice, crossDevice.Status);
        Assert.Equal(EXDEV, crossDevice.OsError);
        Assert.Equal("root/journal", crossDevice.FilePath);
        Assert.StartsWith("Not on the same file system during hard-linking as 'branch/journal'", error.Message);
    }

    [Fact]
    public void Too_many_links_status_maps_to_its_exception()
    {
        var error = PalErrors.Create(PalStatus.TooManyLinks, EMLINK, "hard-linking as 'branch/journal'", "root/journal");

        var tooMany = Assert.IsType<PalTooManyLinksException>(error);
        Assert.Equal(PalStatus.TooManyLinks, tooMany.Status);
        Assert.Equal(EMLINK, tooMany.OsError);
        Assert.StartsWith("Too many links during hard-linking as 'branch/journal'", error.Message);
    }
}
