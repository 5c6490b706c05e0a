namespace Cairn.Extensions.Hosting;

/// <summary>
/// One environment's settings as a host configures them, validated when the host starts and named after the
/// environment's registration (<c>services.AddCairn(name, ...)</c>): the engine's own <see cref="StorageOptions"/>
/// under <see cref="Storage"/>, every one of them bindable from configuration (a section such as
/// <c>"Cairn:Orders"</c> with a <c>"Storage"</c> subsection), and the settings only a host has (its health check's
/// thresholds).
/// </summary>
public sealed class CairnOptions
{
    /// <summary>
    /// The engine's options (required, for <see cref="StorageOptions.DirectoryPath"/>): bound from the section's
    /// <c>"Storage"</c> subsection, option by option under its own name, or set whole in code. Unset options keep the
    /// engine's defaults; <see cref="StorageOptions.Name"/> defaults to the registration's name, and the
    /// <see cref="StorageOptions.LoggerFactory"/> and <see cref="StorageOptions.MeterFactory"/> to the host's.
    /// Default: null; required (the host fails to start without it).
    /// </summary>
    public StorageOptions? Storage { get; set; }

    /// <summary>
    /// The health check reports Degraded once scratch memory in use reaches this fraction of
    /// <see cref="StorageOptions.MaxScratchBytes"/> (commits wait for room at 1.0). Default: 0.8. Unit: fraction;
    /// greater than 0 and at most 1.
    /// </summary>
    public double ScratchDegradedFraction { get; set; } = 0.8;

    /// <summary>
    /// The health check reports Degraded once journal files on disk exceed this many bytes: the flusher
    /// is not keeping up, or a long reader pins what it would write. Default: null, meaning four times
    /// <see cref="StorageOptions.FlushThresholdBytes"/> (4 GiB with the engine's defaults), the journal a healthy
    /// environment keeps being about one threshold's worth. Unit: bytes; positive.
    /// </summary>
    public long? JournalDegradedBytes { get; set; }
}
