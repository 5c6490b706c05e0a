using System.Globalization;

namespace Cairn.Cli.Output;

/// <summary><c>cairn cluster status</c> as text: the leader line, one row per asked endpoint, the leader's members.</summary>
internal static class ClusterStatusText
{
    public static void Write(TextWriter output, ClusterView view)
    {
        var answered = view.Endpoints.Count(e => e.Error is null);
        output.WriteLine($"cluster status: {view.Endpoints.Count} endpoint(s) asked, {answered} answered");
        output.WriteLine(view.Leader is null
            ? "leader         none among the nodes that answered"
            : $"leader         {view.Leader}, term {view.Term}, commit index {Number(view.LeaderCommitIndex)}");
        output.WriteLine();

        var nodes = new Table(("endpoint", false), ("node", false), ("role", false), ("term", true), ("last log", true), ("commit", true),
            ("applied", true), ("behind", true));
        foreach (var e in view.Endpoints)
            nodes.Add(e.Endpoint, e.Node ?? "-", e.Role, Number(e.Term), Number(e.LastLogIndex), Number(e.CommitIndex), Number(e.AppliedIndex), Number(e.BehindLeader));
        nodes.WriteTo(output);

        if (view.LeaderMembers.Count == 0)
            return;
        output.WriteLine();
        output.WriteLine("members, as the leader sees them");
        var members = new Table(("member", false), ("state", false));
        foreach (var m in view.LeaderMembers)
            members.Add(m.Member, m.State);
        members.WriteTo(output, headings: false);
    }

    private static string Number(long? value) => value is { } v ? v.ToString("N0", CultureInfo.InvariantCulture) : "-";
}
