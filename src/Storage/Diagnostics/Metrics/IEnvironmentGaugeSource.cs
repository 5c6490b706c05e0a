namespace Cairn.Diagnostics;

/// <summary>
/// What an open environment reports to the observable gauges of <see cref="CairnInstruments"/> when a
/// listener collects them. Read from the collecting thread, so each must be safe from any thread and cheap.
/// </summary>
internal interface IEnvironmentGaugeSource
{
    long ScratchBytesInUse { get; }

    long MergerQueueDepth { get; }

    long JournalBytesOnDisk { get; }

    /// <summary>Seconds since the oldest open read transaction began; 0 with none open.</summary>
    double OldestReaderAgeSeconds { get; }
}
