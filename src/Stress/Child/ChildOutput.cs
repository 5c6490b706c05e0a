namespace Cairn.Stress.Child;

/// <summary>The child's standard output: whole lines from many threads, each flushed before its writer moves on.</summary>
internal sealed class ChildOutput(TextWriter writer)
{
    private readonly Lock _gate = new();

    public void Say(string line)
    {
        lock (_gate)
        {
            writer.WriteLine(line);
            writer.Flush();
        }
    }
}
