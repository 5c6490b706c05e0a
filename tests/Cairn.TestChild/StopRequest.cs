namespace Cairn.TestChild;

/// <summary>Set when standard input says <c>stop</c> or ends; read by a loop between units of work.</summary>
internal sealed class StopRequest
{
    private volatile bool _requested;

    public bool IsRequested => _requested;

    public static StopRequest WatchStandardInput()
    {
        var request = new StopRequest();
        // A background thread: it must not keep the process alive, and a blocking ReadLine is the
        // simplest way to notice both a stop line and a closed pipe.
        var watcher = new Thread(() =>
        {
            string? line;
            while ((line = Console.In.ReadLine()) is not null && line.Trim() != "stop")
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
