namespace Cairn.Stress.Protocol;

/// <summary>
/// A named moment inside the engine at which a child can kill itself with SIGKILL. The PAL's fault hooks
/// (<c>cairn_test_set_fault</c>) inject failed or short I/O, not stops, so they cannot place a crash; the
/// engine's log events can: each is logged synchronously at a fixed step, on the thread doing that step, so a
/// logger that kills the process when the event arrives stops the engine exactly there. Only the public
/// <see cref="StorageOptions.LoggerFactory"/> is needed.
/// </summary>
/// <param name="Name">As printed and passed on the command line.</param>
/// <param name="EventId">The engine's log event (src/Storage/Diagnostics/Log.cs).</param>
/// <param name="Where">What has happened and what has not, when the kill lands.</param>
internal sealed record KillPoint(string Name, int EventId, string Where)
{
    /// <summary>During recovery, after a journal has been replayed and before the next is read or anything is deleted.</summary>
    public static KillPoint RecoveryReplayedJournal { get; } = new("recovery-replayed-journal", 1101,
        "recovery replayed a journal, before it reads the next or deletes anything");

    /// <summary>Recovery done, its state not yet published, the flusher not yet started.</summary>
    public static KillPoint RecoveryCompleted { get; } = new("recovery-completed", 1102,
        "recovery finished replaying, before the environment is in service");

    /// <summary>A new journal file is in service and its name synced, before the first entry is written into it.</summary>
    public static KillPoint JournalCreated { get; } = new("journal-created", 1201,
        "a journal file was put in service, before its first entry");

    /// <summary>The data file synced, the header written and synced, and the journals it covers released.</summary>
    public static KillPoint DataFileSynced { get; } = new("data-file-synced", 1500,
        "the data file was synced, the header written and covered journals released");

    /// <summary>A branch's link to its root's journal file was made durable, before the entry in it is acknowledged.</summary>
    public static KillPoint JournalLinked { get; } = new("journal-linked", 1600,
        "a branch linked its root's journal file, before the commit in it returned");

    public static IReadOnlyList<KillPoint> All { get; } = [RecoveryReplayedJournal, RecoveryCompleted, JournalCreated, DataFileSynced, JournalLinked];

    public static KillPoint Named(string name)
        => All.FirstOrDefault(p => p.Name == name) ?? throw new ArgumentException($"unknown kill point '{name}' (known: {string.Join(", ", All.Select(p => p.Name))})");
}
