using Cairn.Journal;
using Cairn.Tests.Journal;

namespace Cairn.Tests.Commit;

/// <summary>A journal file read back as recovery reads it: its valid entries from offset 0, then what stops the scan.</summary>
internal sealed unsafe class JournalReadBack
{
    private readonly byte[] _bytes;

    public JournalReadBack(string path)
    {
        // The journal is still open for writing (O_DIRECT): share it rather than ask for it alone.
        using (var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
        {
            _bytes = new byte[stream.Length];
            stream.ReadExactly(_bytes);
        }
        long offset = 0;
        fixed (byte* start = _bytes)
        {
            while (true)
            {
                var validation = JournalEntryReader.Validate(start + offset, _bytes.Length - offset, offset);
                if (!validation.IsValid)
                {
                    End = validation.Problem;
                    break;
                }
                Entries.Add(validation);
                offset += validation.EntrySize;
            }
        }
    }

    public List<JournalEntryValidation> Entries { get; } = [];

    /// <summary>Why the scan stopped (a journal with nothing after its last entry ends in zeros: <see cref="JournalEntryProblem.Empty"/>).</summary>
    public JournalEntryProblem End { get; private set; }

    /// <summary>The entry's page records, exactly as written (compressed or not).</summary>
    public byte[] Payload(in JournalEntryValidation entry)
        => _bytes.AsSpan((int)entry.Offset + JournalEntryHeader.Size, (int)entry.Header.PayloadSize).ToArray();

    /// <summary>Applies the entry's page records to <paramref name="target"/>; returns how many it applied.</summary>
    public int Apply(in JournalEntryValidation entry, MemoryTarget target)
    {
        using var reader = new JournalEntryReader();
        fixed (byte* start = _bytes)
            return reader.Apply(start + entry.Offset, entry, ref target);
    }
}
