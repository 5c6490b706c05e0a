namespace Cairn.Bench.KeyValue;

/// <summary>
/// What a scan saw. Summing the key and value lengths makes every store hand out each item, not
/// just count steps, and lets a check confirm the scan saw whole items.
/// </summary>
public readonly record struct ScanTotals(long Items, long KeyBytes, long ValueBytes);
