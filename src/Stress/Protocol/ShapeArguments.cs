namespace Cairn.Stress.Protocol;

/// <summary>A <see cref="WorkloadShape"/> on the child's command line.</summary>
internal static class ShapeArguments
{
    public static IEnumerable<string> ToArguments(WorkloadShape shape) => Arguments.Pairs(
    [
        ("--trees", shape.Trees),
        ("--key-space", shape.KeySpace),
        ("--min-keys", shape.MinKeysPerTransaction),
        ("--max-keys", shape.MaxKeysPerTransaction),
        ("--min-value", shape.MinValueBytes),
        ("--max-value", shape.MaxValueBytes),
        ("--large-every", shape.LargeValueEvery),
        ("--min-large", shape.MinLargeValueBytes),
        ("--max-large", shape.MaxLargeValueBytes),
        ("--delete-every", shape.DeleteEvery),
        ("--log-window", shape.LogWindow),
        ("--extra-tree-every", shape.ExtraTreeEvery),
        ("--large-extra-trees", shape.LargeExtraTreeValues ? 1 : 0),
    ]);

    public static WorkloadShape Take(Arguments arguments)
    {
        var shape = new WorkloadShape();
        return shape with
        {
            Trees = arguments.TakeInt("--trees") ?? shape.Trees,
            KeySpace = arguments.TakeInt("--key-space") ?? shape.KeySpace,
            MinKeysPerTransaction = arguments.TakeInt("--min-keys") ?? shape.MinKeysPerTransaction,
            MaxKeysPerTransaction = arguments.TakeInt("--max-keys") ?? shape.MaxKeysPerTransaction,
            MinValueBytes = arguments.TakeInt("--min-value") ?? shape.MinValueBytes,
            MaxValueBytes = arguments.TakeInt("--max-value") ?? shape.MaxValueBytes,
            LargeValueEvery = arguments.TakeInt("--large-every") ?? shape.LargeValueEvery,
            MinLargeValueBytes = arguments.TakeInt("--min-large") ?? shape.MinLargeValueBytes,
            MaxLargeValueBytes = arguments.TakeInt("--max-large") ?? shape.MaxLargeValueBytes,
            DeleteEvery = arguments.TakeInt("--delete-every") ?? shape.DeleteEvery,
            LogWindow = arguments.TakeInt("--log-window") ?? shape.LogWindow,
            ExtraTreeEvery = arguments.TakeInt("--extra-tree-every") ?? shape.ExtraTreeEvery,
            LargeExtraTreeValues = (arguments.TakeInt("--large-extra-trees") ?? 0) != 0,
        };
    }
}
