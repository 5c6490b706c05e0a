namespace Cairn.Journal;

/// <summary>How a page record's bytes describe the page run.</summary>
internal enum PageRecordEncoding : byte
{
    /// <summary>The run's bytes as they are (page count × 8192 bytes).</summary>
    Full = 0,

    /// <summary>A diff against the run's previous version (what it was before this transaction): replay patches the page in place.</summary>
    Diff = 1,

    /// <summary>A diff against all zeros: replay zeroes the run and then patches it, whatever it held.</summary>
    NewPage = 2,
}
