using Cairn.Tests.Support;

namespace Cairn.Tests.Environment;

/// <summary>The public cursor's ranges: prefix scans both ways, reverse ranges, and edges.</summary>
public class CursorRangeTests
{
    private static readonly string[] Keys =
        ["a", "app", "apple", "apple/1", "apple/2", "applf", "b", "bz", "b\u00ff", "c"];

    [Fact]
    public void Prefix_scans_stay_inside_the_prefix_in_both_directions()
    {
        using var dir = new TestDirectory("cursor-prefix");
        using var env = Populated(dir);
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();

        Assert.Equal(["apple", "apple/1", "apple/2"], Forward(cursor, cursor.SeekPrefix(Key("apple"))));
        Assert.Equal(["apple/2", "apple/1", "apple"], Backward(cursor, cursor.SeekPrefixLast(Key("apple"))));
        Assert.Equal(["b", "bz", "b\u00ff"], Forward(cursor, cursor.SeekPrefix(Key("b"))));
        Assert.Equal(["b\u00ff", "bz", "b"], Backward(cursor, cursor.SeekPrefixLast(Key("b"))));
        Assert.Empty(Forward(cursor, cursor.SeekPrefix(Key("zz"))));
        Assert.Empty(Backward(cursor, cursor.SeekPrefixLast(Key("0"))));
        // a prefix of all 0xFF bytes has no successor key: the reverse scan starts from the end
        Assert.Empty(Backward(cursor, cursor.SeekPrefixLast([0xFF])));
    }

    [Fact]
    public void Reverse_ranges_start_at_or_before_the_key()
    {
        using var dir = new TestDirectory("cursor-reverse");
        using var env = Populated(dir);
        using var tx = env.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();

        Assert.Equal(["apple", "app", "a"], Backward(cursor, cursor.SeekAtOrBefore(Key("apple"))));
        Assert.Equal(["apple/2", "apple/1"], Backward(cursor, cursor.SeekAtOrBefore(Key("apple/3"))).Take(2));
        Assert.Equal(["c"], Backward(cursor, cursor.SeekAtOrBefore(Key("zzz"))).Take(1));
        Assert.False(cursor.SeekAtOrBefore(Key("0")));
        Assert.Equal(Keys, Forward(cursor, cursor.SeekFirst()));
        Assert.Equal(Keys.Reverse(), Backward(cursor, cursor.SeekLast()));
        Assert.Throws<InvalidOperationException>(() => cursor.Key.Length);
    }

    private static StorageEnvironment Populated(TestDirectory dir)
    {
        var env = StorageEnvironment.Open(new StorageOptions(dir.Path));
        using var tx = env.BeginWrite();
        var t = tx.CreateTree("t");
        foreach (var key in Keys)
            t.Put(Key(key), Key(key));
        tx.Commit();
        return env;
    }

    // Keys are Latin-1 so "\u00ff" is the single byte 0xFF and sorts last, as bytes do.
    private static byte[] Key(string key) => System.Text.Encoding.Latin1.GetBytes(key);

    private static List<string> Forward(TreeCursor cursor, bool positioned)
    {
        var keys = new List<string>();
        for (bool more = positioned; more; more = cursor.MoveNext())
            keys.Add(System.Text.Encoding.Latin1.GetString(cursor.Key));
        return keys;
    }

    private static List<string> Backward(TreeCursor cursor, bool positioned)
    {
        var keys = new List<string>();
        for (bool more = positioned; more; more = cursor.MovePrevious())
            keys.Add(System.Text.Encoding.Latin1.GetString(cursor.Key));
        return keys;
    }
}
