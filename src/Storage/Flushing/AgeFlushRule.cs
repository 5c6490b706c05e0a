namespace Cairn.Flushing;

/// <summary>
/// Whether the age of the oldest unflushed commit makes a flush due (issue 29, item 10). A flush by age writes every
/// page dirtied since the last flush; with random keys that is most of the tree each time, while the journal written
/// in the meantime (what the flush makes unnecessary to replay) may be far smaller: a 2 M-key random fill wrote 4.7
/// times its tree to the data file, one whole tree per <see cref="FlushSettings.MaxFlushDelay"/>. So once the delay
/// has passed, the flush goes at once only where it is cheap or worth it, and otherwise waits, at most
/// <see cref="FlushSettings.SyncInterval"/> since the oldest unflushed commit:
/// <list type="bullet">
/// <item>it is small (at most <see cref="FlushSettings.SmallFlushBytes"/> of page versions to write);</item>
/// <item>the writers are quiet (no commit for a flush delay): nothing more will share the flush's cost;</item>
/// <item>the journal written since the last flush is at least what the flush writes (it writes no more than it covers).</item>
/// </list>
/// Every other bound is kept as it was, whatever this rule says: the flush threshold (scratch memory), the recovery
/// objective and the journals' budget make a flush due on their own, and a checkpoint or close flushes all.
/// </summary>
internal static class AgeFlushRule
{
    /// <param name="settings">The flush delay, the sync interval (the longest wait) and the small flush's size.</param>
    /// <param name="oldestWaited">How long the oldest unflushed commit has waited (its flush delay's clock).</param>
    /// <param name="sinceNewestCommit">How long since the newest commit was published.</param>
    /// <param name="bytesToWrite">About what the flush would write: the page versions in scratch memory.</param>
    /// <param name="journalSinceFlush">Journal bytes written since the state the last flush made the file current for.</param>
    public static bool IsDue(FlushSettings settings, TimeSpan oldestWaited, TimeSpan sinceNewestCommit, long bytesToWrite, long journalSinceFlush)
    {
        if (oldestWaited < settings.MaxFlushDelay)
            return false;
        return bytesToWrite <= settings.SmallFlushBytes
            || sinceNewestCommit >= settings.MaxFlushDelay
            || journalSinceFlush >= bytesToWrite
            || oldestWaited >= LongestWait(settings);
    }

    /// <summary>The longest the rule lets the oldest unflushed commit wait.</summary>
    public static TimeSpan LongestWait(FlushSettings settings)
        => settings.SyncInterval > settings.MaxFlushDelay ? settings.SyncInterval : settings.MaxFlushDelay;

    /// <summary>
    /// How long until the rule may say otherwise, once the flush delay has passed and it said wait: the writers have
    /// been quiet for a flush delay, or the longest wait ends, whichever is nearer (the journal catching up with the
    /// scratch memory is seen then too).
    /// </summary>
    public static TimeSpan UntilNextLook(FlushSettings settings, TimeSpan oldestWaited, TimeSpan sinceNewestCommit)
    {
        var untilQuiet = sinceNewestCommit >= settings.MaxFlushDelay ? TimeSpan.Zero : settings.MaxFlushDelay - sinceNewestCommit;
        var untilLongest = LongestWait(settings) - oldestWaited;
        return untilQuiet < untilLongest ? untilQuiet : untilLongest;
    }
}
