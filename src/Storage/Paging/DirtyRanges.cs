using System.Runtime.CompilerServices;

namespace Cairn.Paging;

/// <summary>
/// The byte ranges of a dirty page run written since it was copied from its previous version: outside
/// them the run equals that version by construction, so the journal's diff compares only inside them
/// (<see cref="Journal.PageDiffEncoder"/>). At most <see cref="Capacity"/> ranges, sorted and disjoint;
/// a write within <see cref="MergeDistance"/> bytes of a range joins it, and one more range than fits
/// joins the two closest (a superset is always correct, only slower to diff). "Whole run" is
/// <c>[0, int.MaxValue - MergeDistance)</c>, cut to the run's length by readers. Lives in a <see cref="DirtyRangeStore"/>
/// and is reached by pointer: the tree records a write without looking its page up.
/// </summary>
internal unsafe struct DirtyRanges
{
    public const int Capacity = 4;

    /// <summary>
    /// Writes this close to a range join it: comparing a few more unchanged bytes costs less than
    /// a range's loop turn, and keeps the slot-array and node ranges of successive inserts whole.
    /// </summary>
    public const int MergeDistance = 32;

    // Past the end of any run (a journal record's run is under int.MaxValue - 4095 bytes), with room to add MergeDistance.
    private const int Whole = int.MaxValue - MergeDistance;

    private int _count;
    // Start and end of each range; one pair more than Capacity holds an insert before the closest two join.
    private fixed int _bounds[2 * (Capacity + 1)];

    public int Count => _count;

    public int Start(int index) => _bounds[2 * index];

    public int End(int index) => _bounds[2 * index + 1];

    /// <summary>Whether any byte may have changed (the set covers the whole run).</summary>
    public bool IsWhole => _count == 1 && _bounds[0] == 0 && _bounds[1] == Whole;

    /// <summary>
    /// A copy just taken: only the header, which every dirty page's commit rewrites (page number and checksum
    /// are stamped, and the slotted page's counters live there), so no write into it needs recording.
    /// </summary>
    public void StartWithHeader()
    {
        _count = 1;
        _bounds[0] = 0;
        _bounds[1] = PageHeader.Size;
    }

    /// <summary>Any byte may change: a page written by code that does not record its writes, or a new run.</summary>
    public void SetWhole()
    {
        _count = 1;
        _bounds[0] = 0;
        _bounds[1] = Whole;
    }

    /// <summary>Records that bytes [<paramref name="start"/>, <paramref name="end"/>) were (or are about to be) written.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(int start, int end)
    {
        if (end <= start)
            return;
        // The usual case: inside, or growing, the range it joins.
        int n = _count;
        int i = 0;
        while (i < n && _bounds[2 * i + 1] + MergeDistance < start)
            i++;
        if (i < n && _bounds[2 * i] <= end + MergeDistance && (i + 1 == n || _bounds[2 * i + 2] > end + MergeDistance))
        {
            _bounds[2 * i] = Math.Min(_bounds[2 * i], start);
            _bounds[2 * i + 1] = Math.Max(_bounds[2 * i + 1], end);
            return;
        }
        AddSlow(i, start, end);
    }

    /// <summary>The new range joins none, or several, of those from <paramref name="first"/> on.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddSlow(int first, int start, int end)
    {
        int n = _count;
        int last = first;
        while (last < n && _bounds[2 * last] <= end + MergeDistance)
        {
            start = Math.Min(start, _bounds[2 * last]);
            end = Math.Max(end, _bounds[2 * last + 1]);
            last++;
        }
        int joined = last - first;
        int shift = 1 - joined;
        if (shift > 0)
        {
            for (int k = n - 1; k >= last; k--)
            {
                _bounds[2 * k + 2] = _bounds[2 * k];
                _bounds[2 * k + 3] = _bounds[2 * k + 1];
            }
        }
        else if (shift < 0)
        {
            for (int k = last; k < n; k++)
            {
                _bounds[2 * (k + shift)] = _bounds[2 * k];
                _bounds[2 * (k + shift) + 1] = _bounds[2 * k + 1];
            }
        }
        _bounds[2 * first] = start;
        _bounds[2 * first + 1] = end;
        _count = n + shift;
        if (_count > Capacity)
            JoinClosest();
    }

    /// <summary>One range too many: the two with the fewest bytes between them become one.</summary>
    private void JoinClosest()
    {
        int best = 0;
        int bestGap = int.MaxValue;
        for (int k = 0; k + 1 < _count; k++)
        {
            int gap = _bounds[2 * k + 2] - _bounds[2 * k + 1];
            if (gap < bestGap)
            {
                best = k;
                bestGap = gap;
            }
        }
        _bounds[2 * best + 1] = _bounds[2 * best + 3];
        for (int k = best + 1; k + 1 < _count; k++)
        {
            _bounds[2 * k] = _bounds[2 * k + 2];
            _bounds[2 * k + 1] = _bounds[2 * k + 3];
        }
        _count--;
    }

    public override string ToString()
    {
        var text = new System.Text.StringBuilder();
        for (int k = 0; k < _count; k++)
            text.Append(k == 0 ? "" : ", ").Append('[').Append(Start(k)).Append(", ").Append(End(k) == Whole ? "end" : End(k).ToString()).Append(')');
        return text.ToString();
    }
}
