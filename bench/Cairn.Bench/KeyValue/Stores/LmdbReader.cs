using LightningDB;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// Keeps one LightningDB read transaction, reset between uses. Renew takes a fresh snapshot into the
/// reader slot the transaction already owns (MDB_NOTLS), so a single-read transaction is renew, get,
/// reset: no allocation, no mutex, no syscall. Values are spans over LMDB's map (<see cref="MDBValue"/>).
/// </summary>
internal sealed class LmdbReader : IBenchReader
{
    private readonly LightningTransaction _tx;
    private readonly LightningDatabase _db;

    public LmdbReader(LightningEnvironment env, LightningDatabase db)
    {
        _db = db;
        _tx = env.BeginTransaction(TransactionBeginFlags.ReadOnly);
        _tx.Reset();
    }

    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        _tx.Renew();
        try
        {
            var (rc, _, value) = _tx.Get(_db, key);
            if (rc == MDBResultCode.NotFound)
                return -1;
            rc.ThrowOnError();
            var span = value.AsSpan();
            span.CopyTo(destination);
            return span.Length;
        }
        finally
        {
            _tx.Reset();
        }
    }

    public int ReadManyInOneTransaction(KeySet keys, int start, int count)
    {
        var found = 0;
        var index = start;
        _tx.Renew();
        try
        {
            for (var i = 0; i < count; i++)
            {
                var rc = _tx.Get(_db, keys[index]).resultCode;
                if (rc == MDBResultCode.Success)
                    found++;
                else if (rc != MDBResultCode.NotFound)
                    rc.ThrowOnError();
                if (++index == keys.Count)
                    index = 0;
            }
        }
        finally
        {
            _tx.Reset();
        }
        return found;
    }

    public ScanTotals ScanAll()
    {
        long items = 0, keyBytes = 0, valueBytes = 0;
        _tx.Renew();
        try
        {
            using var cursor = _tx.CreateCursor(_db);
            var step = cursor.First();
            while (step.resultCode == MDBResultCode.Success)
            {
                items++;
                keyBytes += step.key.AsSpan().Length;
                valueBytes += step.value.AsSpan().Length;
                step = cursor.Next();
            }
            if (step.resultCode != MDBResultCode.NotFound)
                step.resultCode.ThrowOnError();
        }
        finally
        {
            _tx.Reset();
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    // LightningDB's Dispose aborts only a transaction in the Ready state: a reset one keeps its reader
    // slot until the environment closes (found by the durable self-check, which ran out of slots
    // creating a reader per key). Renewing first makes Dispose abort it and free the slot.
    public void Dispose()
    {
        if (_tx.State == LightningTransactionState.Reset)
            _tx.Renew();
        _tx.Dispose();
    }
}
