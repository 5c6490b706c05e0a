using System.Threading.Tasks.Sources;
using Cairn.Merger;

namespace Cairn;

/// <summary>An operation with a result: <c>WriteAsync(state, static (tx, state) =&gt; result)</c>.</summary>
internal sealed class MergedFunction<TState, TResult> : MergedOperation<WriteTransaction>, IValueTaskSource<TResult>
{
    private ManualResetValueTaskSourceCore<TResult> _core = new() { RunContinuationsAsynchronously = false };
    private Func<WriteTransaction, TState, TResult>? _operation;
    private TState _state = default!;
    private TResult _result = default!;

    public static MergedFunction<TState, TResult> Rent(Func<WriteTransaction, TState, TResult> operation, TState state)
    {
        var item = OperationPool<MergedFunction<TState, TResult>>.Rent();
        item._operation = operation;
        item._state = state;
        return item;
    }

    public ValueTask<TResult> Task => new(this, _core.Version);

    /// <summary>The blocking <c>Write</c>: waits on the thread's event the operation was rented with, then returns it to its pool.</summary>
    public TResult Wait()
    {
        Waiter!.Wait();
        return GetResult(_core.Version);
    }

    // A re-run (another operation of the batch threw) overwrites the result of the discarded run.
    public override void Execute(WriteTransaction transaction)
    {
        transaction.EnterOperation();
        try
        {
            _result = _operation!(transaction, _state);
        }
        finally
        {
            transaction.LeaveOperation();
        }
    }

    protected override void SetResult() => _core.SetResult(_result);

    protected override void SetException(Exception error) => _core.SetException(error);

    public TResult GetResult(short token)
    {
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            _operation = null;
            _state = default!;
            _result = default!;
            _core.Reset();
            Recycle();
            OperationPool<MergedFunction<TState, TResult>>.Return(this);
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
        => _core.OnCompleted(continuation, state, token, flags);
}
