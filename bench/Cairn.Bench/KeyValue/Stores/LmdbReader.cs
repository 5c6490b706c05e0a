using Cairn.Bench.Peers.Lmdb;

namespace Cairn.Bench.KeyValue.Stores;

/// <summary>
/// Keeps one read transaction, reset between uses. Renew takes a fresh snapshot into the reader
/// slot the transaction already owns, so a single-read transaction is renew, get, reset: no
/// allocation, no mutex, no syscall.
/// </summary>
internal sealed class LmdbReader : IBenchReader
{
    private readonly LmdbTransaction _txn;
    private readonly uint _dbi;

    public LmdbReader(LmdbEnvironment env, uint dbi)
    {
        _dbi = dbi;
        _txn = env.BeginRead();
        _txn.Reset();
    }

    public int ReadInOwnTransaction(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        _txn.Renew();
        try
        {
            if (!_txn.TryGet(_dbi, key, out var value))
                return -1;
            value.CopyTo(destination);
            return value.Length;
        }
        finally
        {
            _txn.Reset();
        }
    }

    public int ReadManyInOneTransaction(KeySet keys, int start, int count)
    {
        var found = 0;
        var index = start;
        _txn.Renew();
        try
        {
            for (var i = 0; i < count; i++)
            {
                if (_txn.TryGet(_dbi, keys[index], out _))
                    found++;
                if (++index == keys.Count)
                    index = 0;
            }
        }
        finally
        {
            _txn.Reset();
        }
        return found;
    }

    public ScanTotals ScanAll()
    {
        long items = 0, keyBytes = 0, valueBytes = 0;
        _txn.Renew();
        try
        {
            using var cursor = _txn.OpenCursor(_dbi);
            var op = LmdbCursorOp.First;
            while (cursor.TryMove(op, out var key, out var value))
            {
                items++;
                keyBytes += key.Length;
                valueBytes += value.Length;
                op = LmdbCursorOp.Next;
            }
        }
        finally
        {
            _txn.Reset();
        }
        return new ScanTotals(items, keyBytes, valueBytes);
    }

    public void Dispose() => _txn.Dispose();
}
