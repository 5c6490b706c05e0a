namespace Cairn.Stress.Child;

/// <summary>Set when the parent writes <c>stop</c> or its end of standard input closes; read by every loop between units of work.</summary>
internal sealed class StopRequest
{
    private volatile bool _requested;

    public bool IsRequested => _requested;

    /// <summary>A closed input also means a dead parent, so an orphaned child does not run forever.</summary>
    public static StopRequest Watch(TextReader input)
    {
        var request = new StopRequest();
        // A background thread: it must not keep the process alive, and a blocking ReadLine notices both a stop line and a closed pipe.
        var watcher = new Thread(() =>
        {
            string? line;
            while ((line = input.ReadLine()) is not null && line.Trim() != "stop")
            {
            }
            request._requested = true;
        })
        {
            IsBackground = true,
            Name = "stop request watcher",
        };
        watcher.Start();
        return request;
    }
}
