using Cairn.Pal;

namespace Cairn.Flushing;

/// <summary>
/// The PAL's data-file writer is process-wide and configured once, before its first use. The engine
/// asks for low I/O priority (best-effort class, level 7) so background flushes and syncs yield to
/// journal writes and reads; if the host configured or started the writer first, its choice stands.
/// </summary>
internal static class DataFileWriterSetup
{
    private static int s_done;

    public static void EnsureConfigured()
    {
        if (Interlocked.Exchange(ref s_done, 1) != 0)
            return;
        try
        {
            PalIo.Configure(new PalIoOptions { LowPriority = true });
        }
        catch (InvalidOperationException)
        {
            // Already started with the host's configuration.
        }
    }
}
