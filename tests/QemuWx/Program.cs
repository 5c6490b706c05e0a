using System.Collections.Concurrent;
using System.Reflection;
using System.Reflection.Emit;
using QemuWxControl;

// The control for the linux-arm64 qemu-user sightings (docs/decisions.md, issue 30, W arm64): no Cairn, only
// what the runtime does under load that writes or rewrites code: methods jitted at tier 0 and re-jitted at
// tier 1 (and on-stack replacement) while other threads call them, one instantiation per value-type argument;
// interface dispatch; async state machines over the same types; reflection invokers; dynamic methods whose
// freed code memory is reused; ConcurrentDictionary<string, bool>.TryAdd (dotnet/runtime#106819's repro).
// Every result is checked against a value computed independently: a wrong one exits 3 naming it. A fixed
// amount of work (--rounds), not a duration, so W^X on and off are compared on the same work.
// --no-dynamic-methods leaves this program's own dynamic methods out (the reflection invokers the runtime emits
// for the async chains stay): what is left is tiering, dispatch, async and reflection.
int rounds = Argument("--rounds", 8);
int threads = Argument("--threads", 4);
bool dynamicMethods = !args.Contains("--no-dynamic-methods");
long checks = 0;

for (int round = 0; round < rounds; round++)
{
    var kernels = Enumerable.Range(round * KernelBatch.Size, KernelBatch.Size).Select(KernelBatch.Create).ToArray();
    var keys = new ConcurrentDictionary<string, int>();
    var randomKeys = new ConcurrentDictionary<string, bool>();
    // Phase 1 jits every kernel at tier 0; the pause lets the runtime's tiering delay (100 ms without new
    // tier-0 methods) pass, so phase 2's calls are counted and the kernels re-jitted while threads call them.
    using var barrier = new Barrier(threads, _ => Thread.Sleep(200));
    int currentRound = round;
    var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
    {
        foreach (var kernel in kernels)
            Check(kernel, 100);
        barrier.SignalAndWait();
        var random = new Random(currentRound * 31 + t);
        for (int rep = 0; rep < 40; rep++)
        {
            for (int k = 0; k < kernels.Length; k++)
                Check(kernels[(k + t) % kernels.Length], 500 + (rep * 37 + t * 11 + k * 7) % 2500);
            for (int i = 0; i < 50; i++)
            {
                keys.TryAdd($"{currentRound}:{t}:{rep * 50 + i}", rep * 50 + i);
                randomKeys.TryAdd(random.Next(0xFFFF).ToString(), true);
            }
        }
    })).ToList();
    var dynamic = new Thread(() =>
    {
        if (dynamicMethods)
            DynamicMethodsRound(currentRound);
    });
    workers.ForEach(w => w.Start());
    dynamic.Start();
    long asyncChecks = AsyncChainsAsync(round).GetAwaiter().GetResult();
    workers.ForEach(w => w.Join());
    dynamic.Join();

    if (keys.Count != threads * 2000)
        Fail($"round {round}: {keys.Count} keys, not {threads * 2000}");
    foreach (var (key, value) in keys)
        if (int.Parse(key.AsSpan(key.LastIndexOf(':') + 1)) != value)
            Fail($"round {round}: key {key} holds {value}");
    Interlocked.Add(ref checks, asyncChecks + keys.Count);
    Console.WriteLine($"round {round + 1} of {rounds}: {kernels.Length} kernels, {keys.Count} keys, {randomKeys.Count} random keys");
}
Console.WriteLine($"control passed: {rounds} rounds, {threads} threads, {checks} results checked");
return 0;

void Check(IKernel kernel, int n)
{
    long got = kernel.Sum(n), expected = kernel.Expected(n);
    if (got != expected)
        Fail($"{kernel.GetType()} Sum({n}) = {got}, expected {expected}");
    Interlocked.Increment(ref checks);
}

// Dynamic methods are jitted into code memory that is freed when they are collected and handed out again:
// the same addresses get new code, which is where an emulator that misses the rewrite runs the old one.
void DynamicMethodsRound(int round)
{
    for (int batch = 0; batch < 8; batch++)
    {
        for (int i = 0; i < 32; i++)
        {
            int value = (round * 8 + batch) * 1000 + i;
            var method = new DynamicMethod($"constant{value}", typeof(int), Type.EmptyTypes);
            var il = method.GetILGenerator();
            il.Emit(OpCodes.Ldc_I4, value);
            il.Emit(OpCodes.Ret);
            int got = method.CreateDelegate<Func<int>>()();
            if (got != value)
                Fail($"dynamic method constant{value} returned {got}");
            Interlocked.Increment(ref checks);
        }
        GC.Collect();
        GC.WaitForPendingFinalizers();
    }
}

// Generic async chains over value types, started through reflection (whose invokers are themselves emitted).
static async Task<long> AsyncChainsAsync(int round)
{
    var gate = new SemaphoreSlim(2);
    var chain = typeof(AsyncChains).GetMethod(nameof(AsyncChains.Chain))!;
    var started = Enumerable.Range(0, 12).Select(i =>
    {
        var weight = KernelBatch.Weights[(round + i) % KernelBatch.Weights.Length];
        var task = (Task<long>)chain.MakeGenericMethod(weight).Invoke(null, [20 + i, gate])!;
        return (Task: task, Expected: KernelBatch.WeightOf(weight) * (21L + i));
    }).ToList();
    await Task.WhenAll(started.Select(s => s.Task));
    foreach (var (task, expected) in started)
        if (task.Result != expected)
            Fail($"async chain returned {task.Result}, expected {expected}");
    return started.Count;
}

static void Fail(string what)
{
    Console.WriteLine($"WRONG: {what}");
    Console.Out.Flush();
    Environment.Exit(3);
}

int Argument(string name, int fallback)
{
    int at = Array.IndexOf(args, name);
    return at >= 0 && at + 1 < args.Length ? int.Parse(args[at + 1]) : fallback;
}
