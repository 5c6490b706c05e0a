namespace Cairn.Hashing;

/// <summary>
/// Which code runs XXH3's long-input loop (<see cref="Xxh3Long"/>). All give the same hash; production uses the
/// fastest this machine accelerates (<see cref="Xxh3Long.BestKernel"/>), tests run each one it can.
/// </summary>
internal enum Xxh3Kernel
{
    /// <summary>One 512-bit accumulator (x64 with AVX-512, where .NET reports it accelerated).</summary>
    Vector512,
    /// <summary>Two 256-bit accumulators (x64 with AVX2).</summary>
    Vector256,
    /// <summary>Four 128-bit accumulators (x64 SSE2, arm64 AdvSimd).</summary>
    Vector128,
    /// <summary>Eight 64-bit accumulators, no vector instructions: any machine, including a big-endian one.</summary>
    Scalar,
}
