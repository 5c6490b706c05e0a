namespace Cairn.Cluster.Tests.Linearizability;

public class HistoryTextTests
{
    [Fact]
    public void Writes_one_line_per_event_in_time_order()
    {
        var history = new HistoryBuilder()
            .Put(1, "x", "a", 0, 30)
            .Get(2, "x", null, 10, 20)
            .Cas(3, "x", null, "b", swapped: false, 15, 40)
            .PutUnknown(4, "x", "c", 16, gaveUp: 50)
            .PutUnknown(5, "x", "d", 17, gaveUp: null)
            .PutFailed(6, "y", "e", 18, 19)
            .Delete(1, "y", 60, 70)
            .Build();
        string[] expected =
        [
            "cairn-history version=1 ticks-per-second=1000",
            "invoke id=0 client=1 at=0 op=put key=\"x\" value=\"a\"",
            "invoke id=1 client=2 at=10 op=get key=\"x\"",
            "invoke id=2 client=3 at=15 op=cas key=\"x\" expected=absent value=\"b\"",
            "invoke id=3 client=4 at=16 op=put key=\"x\" value=\"c\"",
            "invoke id=4 client=5 at=17 op=put key=\"x\" value=\"d\"",
            "invoke id=5 client=6 at=18 op=put key=\"y\" value=\"e\"",
            "fail id=5 at=19",
            "ok id=1 at=20 read=absent",
            "ok id=0 at=30",
            "ok id=2 at=40 swapped=false",
            "unknown id=3 at=50",
            "invoke id=6 client=1 at=60 op=delete key=\"y\"",
            "ok id=6 at=70",
            "",
        ];
        string text = HistoryText.Write(history);
        Assert.Equal(string.Join('\n', expected), text);
        Assert.Equal(history.Operations, HistoryText.Parse(text).Operations);
    }

    [Theory]
    [InlineData("absent")]
    [InlineData("")]
    [InlineData("two words")]
    [InlineData("quote\" percent% equals= #hash")]
    [InlineData("line\nbreak\ttab")]
    [InlineData("ünïcødé ✓")]
    public void Strings_of_any_content_round_trip(string value)
    {
        var history = new HistoryBuilder()
            .Put(1, value, value, 0, 10)
            .Get(2, value, value, 20, 30)
            .Cas(3, value, value, value + "!", swapped: true, 40, 50)
            .Build();
        var parsed = HistoryText.Parse(HistoryText.Write(history));
        Assert.Equal(history.Operations, parsed.Operations);
        Assert.Equal(value, parsed.Operations[1].Completion.Read);
    }

    [Theory]
    [InlineData("", 1, "no header")]
    [InlineData("invoke id=0 client=1 at=0 op=get key=\"x\"", 1, "expected the header")]
    [InlineData("cairn-history version=2 ticks-per-second=1000", 1, "expected the header")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=scan key=\"x\"", 2, "unknown op 'scan'")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=get", 2, "missing field 'key'")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=put key=\"x\" value=absent", 2, "value may not be absent")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=get key=x", 2, "quoted string")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\n# comment\nok id=0 at=5", 3, "never invoked")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=10 op=get key=\"x\"\nok id=0 at=5 read=absent", 3, "before its invoke")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=delete key=\"x\"\ninvoke id=0 client=1 at=0 op=delete key=\"x\"", 3, "invoked twice")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=delete key=\"x\"\nok id=0 at=1\nfail id=0 at=2", 4, "completes twice")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 op=cas key=\"x\" expected=absent value=\"a\"\nok id=0 at=1 swapped=yes", 3, "swapped must be true or false")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=zero op=get key=\"x\"", 2, "'at' is not an integer")]
    [InlineData("cairn-history version=1 ticks-per-second=1000\ninvoke id=0 client=1 at=0 at=1 op=get key=\"x\"", 2, "not a name=value field, or its name repeats")]
    public void Malformed_text_is_refused_naming_the_line(string text, int line, string message)
    {
        var e = Assert.Throws<HistoryFormatException>(() => HistoryText.Parse(text));
        Assert.Equal(line, e.Line);
        Assert.StartsWith($"history line {line}: ", e.Message);
        Assert.Contains(message, e.Message);
    }

    [Fact]
    public void An_operation_with_no_completion_line_is_unknown_with_no_end()
    {
        var history = HistoryText.Parse("cairn-history version=1 ticks-per-second=1000\r\ninvoke id=7 client=1 at=3 op=put key=\"x\" value=\"a\"\r\n");
        var op = Assert.Single(history.Operations);
        Assert.Equal(new Operation(7, 1, OperationCall.Put("x", "a"), 3, Completion.Unknown(null)), op);
    }
}
