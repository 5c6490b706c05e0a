using Cairn.Pal;

namespace Cairn.Journal.Sharing;

/// <summary>The PAL statuses of a hard link that cannot be made (until the PAL names them).</summary>
internal static class PalLinkStatus
{
    public const PalStatus CrossDevice = (PalStatus)12;
    public const PalStatus TooManyLinks = (PalStatus)13;
}
