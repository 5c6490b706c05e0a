using System.CommandLine;
using System.CommandLine.Parsing;
using System.Net;
using Cairn.Cli.Output;
using Cairn.Cluster;

namespace Cairn.Cli.Commands;

/// <summary>
/// <c>cairn cluster status ENDPOINT...</c>: asks each node's client server (<see cref="RemoteNodeConnection.GetStatusAsync"/>)
/// for its own view, and prints the leader, term, indexes and each node's lag. It sends only status requests: nothing
/// is written, and no environment or log is opened.
/// </summary>
internal static class ClusterStatusCommand
{
    public const string Notes = """
        ENDPOINT is a node's client address (its ClientEndPoint, where its ClusterNodeServer listens), host:port. Each
        node answers for itself: its Raft address, whom it follows, its term, the last index in its log, the last it
        knows committed and the last its environment applied. "behind" is the leader's commit index minus the node's
        applied index (the nodes are asked at nearly the same moment, so it is approximate under load). The leader also
        says which members it reaches. Exit code 0 when every node answered, 3 when one did not (the others are still
        printed).
        """;

    public static Command Create(CliContext context)
    {
        var endpoints = new Argument<IPEndPoint[]>("ENDPOINT")
        {
            Description = "Node client addresses (host:port), one or more.",
            Arity = ArgumentArity.OneOrMore,
            CustomParser = ParseEndPoints,
        };
        var json = new Option<bool>("--json") { Description = "Print the statuses as one JSON document instead of text." };
        var timeout = new Option<double>("--timeout") { Description = "Seconds to wait for each node (default 5).", DefaultValueFactory = _ => 5 };
        var status = new Command("status", "Show each node's leader, term, log, commit and applied indexes and lag, asking the nodes over the network.")
        {
            endpoints,
            json,
            timeout,
        };
        status.SetAction(parse => Failures.Guard(context, "cluster status", null, () =>
        {
            var seconds = parse.GetValue(timeout);
            if (seconds is <= 0 or > 3600 || double.IsNaN(seconds))
                throw new CliFailure(ExitCodes.Usage, $"--timeout must be in (0, 3600] seconds, not {seconds}.");
            var answers = AskAllAsync(parse.GetValue(endpoints)!, TimeSpan.FromSeconds(seconds)).GetAwaiter().GetResult();
            var view = ClusterView.From(answers);
            if (parse.GetValue(json))
                CliJson.Write(context.Output, view);
            else
                ClusterStatusText.Write(context.Output, view);
            foreach (var failed in view.Endpoints.Where(e => e.Error is not null))
                context.Error.WriteLine($"cairn cluster status: {failed.Endpoint}: {failed.Error}");
            return view.Endpoints.All(e => e.Error is null) ? ExitCodes.Success : ExitCodes.IoFailure;
        }));
        return new Command("cluster", "Look at a running Cairn.Cluster through its nodes' client servers.") { status };
    }

    private static IPEndPoint[] ParseEndPoints(ArgumentResult result)
    {
        var parsed = new List<IPEndPoint>();
        foreach (var token in result.Tokens)
        {
            if (!EndPointText.TryParse(token.Value, out var endPoint))
            {
                result.AddError($"'{token.Value}' is not an address: write host:port, e.g. 127.0.0.1:7101.");
                return [];
            }

            parsed.Add(endPoint as IPEndPoint ?? Resolve((DnsEndPoint)endPoint, result));
        }

        return parsed.ToArray();
    }

    private static IPEndPoint Resolve(DnsEndPoint endPoint, ArgumentResult result)
    {
        try
        {
            return new IPEndPoint(Dns.GetHostAddresses(endPoint.Host)[0], endPoint.Port);
        }
        catch (Exception e) when (e is System.Net.Sockets.SocketException or IndexOutOfRangeException)
        {
            result.AddError($"'{endPoint.Host}' does not resolve: {e.Message}");
            return new IPEndPoint(IPAddress.None, endPoint.Port);
        }
    }

    private static async Task<(IPEndPoint Endpoint, ClusterNodeStatus? Status, string? Error)[]> AskAllAsync(IPEndPoint[] endpoints, TimeSpan timeout)
        => await Task.WhenAll(endpoints.Select(async endpoint =>
        {
            // The node's Raft address is not known yet: the client address stands in for it in messages.
            await using var connection = new RemoteNodeConnection(endpoint, endpoint);
            using var deadline = new CancellationTokenSource(timeout);
            try
            {
                return (endpoint, await connection.GetStatusAsync(deadline.Token), (string?)null);
            }
            catch (OperationCanceledException)
            {
                return (endpoint, null, $"no answer within {timeout.TotalSeconds:0.###} s");
            }
            catch (Exception e) when (e is IOException or ArgumentException)
            {
                return (endpoint, (ClusterNodeStatus?)null, e.Message);
            }
        }));
}
