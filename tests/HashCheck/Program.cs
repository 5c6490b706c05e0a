using System.Runtime.InteropServices;
using Cairn.Hashing;
using Bcl = System.IO.Hashing;

// Compares Cairn's XXH3 with System.IO.Hashing's for every length through 4,200 (unaligned starts), 64 KiB and
// 1 MiB + 3, seven seeds, through the default entry point and each kernel this machine runs. Exit 0 when all
// agree, 1 at the first difference (printed).
unsafe
{
    ulong[] seeds = [0, 1, 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, ulong.MaxValue, 0x9E37_79B1_85EB_CA87, 123_457];
    Xxh3Kernel[] kernels = Enum.GetValues<Xxh3Kernel>().Where(Xxh3Long.IsSupported).ToArray();
    Console.WriteLine($"{RuntimeInformation.OSDescription}, {RuntimeInformation.ProcessArchitecture}, {RuntimeInformation.FrameworkDescription}; "
        + $"best kernel {Xxh3Long.BestKernel}; kernels checked: {string.Join(", ", kernels)}");
    byte[] buffer = new byte[(1 << 20) + 3 + 64];
    new Random(20261129).NextBytes(buffer);
    long compared = 0;
    fixed (byte* pointer = buffer)
    {
        var lengths = Enumerable.Range(0, 4201).Concat([64 << 10, (1 << 20) + 3]);
        foreach (int length in lengths)
        {
            byte* data = pointer + length % 64;
            foreach (ulong seed in seeds)
            {
                ulong expected = Bcl.XxHash3.HashToUInt64(new ReadOnlySpan<byte>(data, length), unchecked((long)seed));
                if (!Check("default", Xxh3.Hash64(data, (nuint)length, seed), expected, length, seed))
                    return 1;
                foreach (Xxh3Kernel kernel in kernels)
                {
                    if (!Check(kernel.ToString(), Xxh3.Hash64(data, (nuint)length, seed, kernel), expected, length, seed))
                        return 1;
                }
                compared += 1 + kernels.Length;
            }
        }
    }
    Console.WriteLine($"ok: {compared:N0} hashes equal to System.IO.Hashing's");
    return 0;
}

static bool Check(string path, ulong actual, ulong expected, int length, ulong seed)
{
    if (actual == expected)
        return true;
    Console.WriteLine($"MISMATCH: {path}, length {length}, seed 0x{seed:X16}: 0x{actual:X16}, System.IO.Hashing 0x{expected:X16}");
    return false;
}
