using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Cairn.Cluster;

/// <summary>
/// A member's address as text, the same in configuration, on the status wire and on the command line:
/// <c>127.0.0.1:7001</c>, <c>[::1]:7001</c> or <c>host:7001</c>.
/// </summary>
internal static class EndPointText
{
    public static string Format(EndPoint endPoint) => endPoint switch
    {
        DnsEndPoint dns => $"{dns.Host}:{dns.Port.ToString(CultureInfo.InvariantCulture)}",
        _ => endPoint.ToString() ?? throw new ArgumentException($"The address {endPoint.GetType().Name} has no text.", nameof(endPoint)),
    };

    public static bool TryParse(string? text, out EndPoint endPoint)
    {
        endPoint = null!;
        if (string.IsNullOrWhiteSpace(text))
            return false;
        text = text.Trim();
        if (IPEndPoint.TryParse(text, out var ip) && ip.Port != 0 && (text.Contains(']') || text.Count(c => c == ':') == 1))
        {
            endPoint = ip;
            return true;
        }

        var colon = text.LastIndexOf(':');
        if (colon <= 0 || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var port)
            || port is < 1 or > IPEndPoint.MaxPort)
            return false;
        var host = text[..colon];
        if (Uri.CheckHostName(host) is not (UriHostNameType.Dns or UriHostNameType.IPv4))
            return false;
        endPoint = new DnsEndPoint(host, port, AddressFamily.Unspecified);
        return true;
    }

    public static EndPoint Parse(string? text) => TryParse(text, out var endPoint)
        ? endPoint
        : throw new FormatException($"'{text}' is not an address: write host:port, e.g. 127.0.0.1:7001, [::1]:7001 or node1:7001.");
}
