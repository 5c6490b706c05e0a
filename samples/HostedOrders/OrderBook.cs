using System.Buffers.Binary;
using System.Text;

namespace Cairn.Samples.HostedOrders;

/// <summary>The sample's data: one tree of orders keyed by a big-endian sequence number, and a counter.</summary>
internal static class OrderBook
{
    public const string EnvironmentName = "orders";
    private const string Orders = "orders";
    private static readonly byte[] CountKey = "count"u8.ToArray();
    private const string Meta = "meta";

    /// <summary>Places one order in a merged transaction: the order and the count move together or not at all.</summary>
    public static ValueTask PlaceAsync(StorageEnvironment env, string client, long sequence, CancellationToken cancellationToken) =>
        env.WriteAsync((Client: client, Sequence: sequence), static (tx, order) =>
        {
            var orders = tx.TryOpenTree(Orders, out var existing) ? existing : tx.CreateTree(Orders);
            var meta = tx.TryOpenTree(Meta, out var m) ? m : tx.CreateTree(Meta);
            Span<byte> key = stackalloc byte[8];
            BinaryPrimitives.WriteInt64BigEndian(key, order.Sequence);
            orders.Put(key, Encoding.UTF8.GetBytes($"{{\"client\":\"{order.Client}\",\"sequence\":{order.Sequence}}}"));
            Span<byte> count = stackalloc byte[8];
            long before = meta.TryGet(CountKey, out var current) ? BinaryPrimitives.ReadInt64BigEndian(current) : 0;
            BinaryPrimitives.WriteInt64BigEndian(count, before + 1);
            meta.Put(CountKey, count);
        }, cancellationToken);

    /// <summary>Reads the count and the number of orders in one snapshot: they must agree.</summary>
    public static (long Count, long Orders) Read(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        if (!tx.TryOpenTree(Orders, out var orders) || !tx.TryOpenTree(Meta, out var meta))
            return (0, 0);
        long count = meta.TryGet(CountKey, out var value) ? BinaryPrimitives.ReadInt64BigEndian(value) : 0;
        return (count, orders.Count);
    }
}
