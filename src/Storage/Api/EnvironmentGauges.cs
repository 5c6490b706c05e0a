using Cairn.Diagnostics;

namespace Cairn;

/// <summary>What an environment's observable gauges read; internal so the gauge interface stays out of the public surface.</summary>
internal sealed class EnvironmentGauges(StorageEnvironment environment) : IEnvironmentGaugeSource
{
    public long ScratchBytesInUse => environment.ScratchBytesInUse;

    public long MergerQueueDepth => environment.MergerQueueDepth;

    public long JournalBytesOnDisk => environment.JournalBytesOnDisk;

    public double OldestReaderAgeSeconds =>
        environment.Parts.States.Readers.OldestReadStartedAt() is long started
            ? Math.Max(0, System.Environment.TickCount64 - started) / 1000.0
            : 0;
}
