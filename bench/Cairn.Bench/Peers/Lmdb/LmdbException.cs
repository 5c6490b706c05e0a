using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Cairn.Bench.Peers.Lmdb;

/// <summary>An LMDB call returned an error; the message carries <c>mdb_strerror</c>'s text.</summary>
public sealed class LmdbException(string function, int code)
    : Exception($"{function} failed: {Describe(code)} ({code})")
{
    public const int KeyExist = -30799;
    public const int NotFound = -30798;
    public const int MapFull = -30792;

    public string Function { get; } = function;

    public int Code { get; } = code;

    /// <summary>Throws unless <paramref name="code"/> is MDB_SUCCESS; inlined, the throw is not.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Check(int code, string function)
    {
        if (code != 0)
            Throw(function, code);
    }

    [DoesNotReturn, StackTraceHidden, MethodImpl(MethodImplOptions.NoInlining)]
    internal static void Throw(string function, int code) => throw new LmdbException(function, code);

    private static unsafe string Describe(int code) =>
        Marshal.PtrToStringUTF8((nint)LmdbNative.mdb_strerror(code)) ?? "unknown error";
}
