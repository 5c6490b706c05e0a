using System.Threading.Tasks.Sources;
using Cairn.Merger;

namespace Cairn;

/// <summary>An operation with no result: <c>WriteAsync(state, static (tx, state) =&gt; ...)</c>.</summary>
internal sealed class MergedAction<TState> : MergedOperation<WriteTransaction>, IValueTaskSource
{
    // Completion itself runs on a thread-pool thread (MergedOperation.Succeed/Fail), so continuations run
    // inline there, never on the merger's thread.
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = false };
    private Action<WriteTransaction, TState>? _operation;
    private TState _state = default!;

    public static MergedAction<TState> Rent(Action<WriteTransaction, TState> operation, TState state)
    {
        var item = OperationPool<MergedAction<TState>>.Rent();
        item._operation = operation;
        item._state = state;
        return item;
    }

    public ValueTask Task => new(this, _core.Version);

    /// <summary>The blocking <c>Write</c>: waits on the thread's event the operation was rented with, then returns it to its pool.</summary>
    public void Wait()
    {
        Waiter!.Wait();
        GetResult(_core.Version);
    }

    public override void Execute(WriteTransaction transaction)
    {
        transaction.EnterOperation();
        try
        {
            _operation!(transaction, _state);
        }
        finally
        {
            transaction.LeaveOperation();
        }
    }

    protected override void SetResult() => _core.SetResult(true);

    protected override void SetException(Exception error) => _core.SetException(error);

    public void GetResult(short token)
    {
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            _operation = null;
            _state = default!;
            _core.Reset();
            Recycle();
            OperationPool<MergedAction<TState>>.Return(this);
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
        => _core.OnCompleted(continuation, state, token, flags);
}
