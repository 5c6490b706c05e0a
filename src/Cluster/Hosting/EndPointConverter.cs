using System.ComponentModel;
using System.Globalization;
using System.Net;

namespace Cairn.Cluster.Hosting;

/// <summary>
/// Lets configuration binding read addresses (<c>host:port</c>, <see cref="EndPointText"/>) into the
/// <see cref="EndPoint"/> options of <see cref="ClusterNodeOptions"/> and <see cref="CairnClusterOptions"/>, so the node
/// is bound straight into its one option type. Registered with <see cref="TypeDescriptor"/> for the address types
/// when a cluster node is added to a host.
/// </summary>
/// <param name="type">The address type asked for (TypeDescriptor passes it): an <see cref="IPEndPoint"/> must be an IP address.</param>
internal sealed class EndPointConverter(Type type) : TypeConverter
{
    private static int registered;

    public static void Register()
    {
        if (Interlocked.Exchange(ref registered, 1) != 0)
            return;
        foreach (var type in new[] { typeof(EndPoint), typeof(IPEndPoint), typeof(DnsEndPoint) })
            TypeDescriptor.AddAttributes(type, new TypeConverterAttribute(typeof(EndPointConverter)));
    }

    public override bool CanConvertFrom(ITypeDescriptorContext? context, Type sourceType) => sourceType == typeof(string);

    public override object? ConvertFrom(ITypeDescriptorContext? context, CultureInfo? culture, object value)
    {
        // A listening address may leave the port to the OS (port 0); a member's address may not (it is an identity).
        if (type == typeof(IPEndPoint) && IPEndPoint.TryParse(value as string ?? "", out var listening) && (value as string)!.Contains(':'))
            return listening;
        var endPoint = EndPointText.Parse(value as string);
        return type.IsInstanceOfType(endPoint)
            ? endPoint
            : throw new FormatException($"'{value}' is not an IP address and port (e.g. 127.0.0.1:7101).");
    }
}
