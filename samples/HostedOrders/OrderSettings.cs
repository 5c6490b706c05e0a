namespace Cairn.Samples.HostedOrders;

/// <summary>How the sample's clients behave (section "Orders").</summary>
public sealed class OrderSettings
{
    /// <summary>Concurrent clients placing orders.</summary>
    public int Clients { get; set; } = 8;

    /// <summary>How long they place orders before the host stops itself.</summary>
    public double Seconds { get; set; } = 5;
}
