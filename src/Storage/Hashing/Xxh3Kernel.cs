namespace Cairn.Hashing;

/// <summary>
/// Which code runs XXH3's long-input loop (<see cref="Xxh3Long"/>). All give the same hash; production uses the
/// fastest this machine accelerates (<see cref="Xxh3Long.BestKernel"/>), tests run each one it can.
/// </summary>
internal enum Xxh3Kernel
{
    /// <summary>Two 256-bit accumulators (x64 with AVX2). The default on AVX-512 machines too: a 512-bit kernel was
    /// measured no faster (docs/decisions.md, stop 43).</summary>
    Vector256,
    /// <summary>Four 128-bit accumulators (x64 SSE2, arm64 AdvSimd).</summary>
    Vector128,
    /// <summary>Eight 64-bit accumulators, no vector instructions: any machine, including a big-endian one.</summary>
    Scalar,
}
