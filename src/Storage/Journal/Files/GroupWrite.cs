using Cairn.Pal;

namespace Cairn.Journal.Files;

/// <summary>
/// One vectored write of a journal group's entries, from the span it claims on the journal in service to
/// the moment it is settled (found durable with every write before it, or failed). Each of the group's
/// writers owns one and reuses it: no allocation per write.
/// </summary>
internal sealed class GroupWrite
{
    public JournalFile File { get; private set; } = null!;

    /// <summary>Where the write begins in <see cref="File"/>.</summary>
    public long Offset { get; private set; }

    public long Length { get; private set; }

    /// <summary>The requests it carries: [First, End) of the batch its writer took.</summary>
    public int First { get; private set; }

    public int End { get; private set; }

    public long Started { get; set; }

    public long Finished { get; set; }

    /// <summary>Why the write failed: what the device said, or anything else that stopped it (then the journal fails for good).</summary>
    public Exception? Failure { get; set; }

    public int Count => End - First;

    public void Claim(JournalFile file, long offset, long length, int first, int end)
    {
        File = file;
        Offset = offset;
        Length = length;
        First = first;
        End = end;
        Started = 0;
        Finished = 0;
        Failure = null;
    }
}
