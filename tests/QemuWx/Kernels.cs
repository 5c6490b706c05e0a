namespace QemuWxControl;

/// <summary>A weight known to the type: each value type below gets its own jitted code in every generic use.</summary>
internal interface IWeight
{
    static abstract int Weight { get; }
}

internal struct W0 : IWeight { public static int Weight => 3; }
internal struct W1 : IWeight { public static int Weight => 5; }
internal struct W2 : IWeight { public static int Weight => 7; }
internal struct W3 : IWeight { public static int Weight => 11; }
internal struct W4 : IWeight { public static int Weight => 13; }
internal struct W5 : IWeight { public static int Weight => 17; }
internal struct W6 : IWeight { public static int Weight => 19; }
internal struct W7 : IWeight { public static int Weight => 23; }
internal struct W8 : IWeight { public static int Weight => 29; }
internal struct W9 : IWeight { public static int Weight => 31; }
internal struct W10 : IWeight { public static int Weight => 37; }
internal struct W11 : IWeight { public static int Weight => 41; }

internal interface IKernel
{
    long Sum(int n);

    /// <summary>The same sum computed by one shared, non-generic method from the weights as plain numbers.</summary>
    long Expected(int n);
}

internal sealed class Kernel<A, B, C> : IKernel
    where A : struct, IWeight
    where B : struct, IWeight
    where C : struct, IWeight
{
    // A loop long enough for on-stack replacement at tier 0; the weights become constants at tier 1.
    public long Sum(int n)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
            total += (i * (long)A.Weight + B.Weight) ^ C.Weight;
        return total;
    }

    public long Expected(int n) => KernelBatch.Reference(A.Weight, B.Weight, C.Weight, n);
}

internal static class KernelBatch
{
    public const int Size = 12;

    public static readonly Type[] Weights =
        [typeof(W0), typeof(W1), typeof(W2), typeof(W3), typeof(W4), typeof(W5), typeof(W6), typeof(W7), typeof(W8), typeof(W9), typeof(W10), typeof(W11)];

    /// <summary>The <paramref name="index"/>th of the 1,728 instantiations (new ones every round until they run out).</summary>
    public static IKernel Create(int index)
    {
        int count = Weights.Length;
        index %= count * count * count;
        var type = typeof(Kernel<,,>).MakeGenericType(Weights[index % count], Weights[index / count % count], Weights[index / (count * count)]);
        return (IKernel)Activator.CreateInstance(type)!;
    }

    public static int WeightOf(Type weight) => (int)weight.GetProperty(nameof(IWeight.Weight))!.GetValue(null)!;

    public static long Reference(long a, long b, long c, int n)
    {
        long total = 0;
        for (long i = 0; i < n; i++)
            total += (i * a + b) ^ c;
        return total;
    }
}

internal static class AsyncChains
{
    public static async Task<long> Chain<A>(int depth, SemaphoreSlim gate) where A : struct, IWeight
    {
        long sum = A.Weight;
        for (int d = 0; d < depth; d++)
        {
            await Task.Yield();
            await gate.WaitAsync();
            try
            {
                sum += A.Weight;
            }
            finally
            {
                gate.Release();
            }
        }
        return sum;
    }
}
