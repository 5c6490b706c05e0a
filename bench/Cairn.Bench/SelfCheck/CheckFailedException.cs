namespace Cairn.Bench.SelfCheck;

/// <summary>A self-check found data that is not what was written.</summary>
public sealed class CheckFailedException(string message) : Exception(message)
{
    public static void Require(bool condition, string message)
    {
        if (!condition)
            throw new CheckFailedException(message);
    }
}
