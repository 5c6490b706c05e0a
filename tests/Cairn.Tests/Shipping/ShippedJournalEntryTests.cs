using System.Runtime.InteropServices;
using Cairn.Journal;
using Cairn.Shipping;
using Cairn.Tests.Support;

namespace Cairn.Tests.Shipping;

/// <summary>
/// An entry built from received bytes is validated before anything is read from it (issue 30, item 7): a flipped
/// byte of its transaction or environment id is damage, not an out-of-order entry or another environment's.
/// </summary>
public sealed class ShippedJournalEntryTests
{
    [Theory]
    [InlineData(nameof(JournalEntryHeader.TransactionId))]
    [InlineData(nameof(JournalEntryHeader.EnvironmentId))]
    public void A_flipped_id_byte_is_refused_as_damage_by_the_constructor(string field)
    {
        using var dir = new TestDirectory("shipped-entry");
        long backupAt = ShippingFixtures.CreatePrimaryAndBackup(dir.File("primary"), dir.File("replica"));
        ShippedJournalEntry next;
        using (var primary = StorageEnvironment.Open(new StorageOptions(dir.File("primary"))))
        {
            ShippingFixtures.Commit(primary, 100, 1);
            next = primary.ReadJournalEntries(backupAt).Single();
        }
        var intact = new ShippedJournalEntry(next.Data.ToArray());
        Assert.Equal(next.TransactionId, intact.TransactionId);
        Assert.Equal(next.EnvironmentId, intact.EnvironmentId);

        var bytes = next.Data.ToArray();
        bytes[(int)Marshal.OffsetOf<JournalEntryHeader>(field)] ^= 0x10;
        var damaged = Assert.Throws<ShippedEntryDamagedException>(() => new ShippedJournalEntry(bytes));
        Assert.Contains("an entry given as bytes", damaged.Message, StringComparison.Ordinal);
        Assert.Contains("header checksum", damaged.Message, StringComparison.OrdinalIgnoreCase);

        Assert.Throws<ShippedEntryDamagedException>(() => new ShippedJournalEntry(next.Data[..^4096]));
        Assert.Throws<ShippedEntryDamagedException>(() => new ShippedJournalEntry(new byte[10]));

        // The intact entry is still this replica's next one.
        using var replica = ReplicaEnvironment.Open(new ReplicaOptions(dir.File("replica")));
        replica.Apply(intact);
        Assert.Equal(backupAt + 1, replica.LastAppliedTransactionId);
    }
}
