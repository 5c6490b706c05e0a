using System.Globalization;
using System.Reflection;

namespace Cairn.TestChild;

/// <summary>
/// <c>allocation-probe ASSEMBLY TYPE METHOD [ARGUMENT]</c>: runs one allocation probe of the test
/// assembly in this process, where no other test runs, and prints the bytes it returns. A probe is a
/// static method (optionally taking one int) that sets up its work, warms it and returns what it
/// allocated in steady state; an assertion failing inside it fails this process. The assembly is
/// loaded by path because the tests reference this project, not the other way round.
/// </summary>
public static class AllocationProbeCommand
{
    public const string Usage = "allocation-probe ASSEMBLY TYPE METHOD [ARGUMENT]";

    public static int Run(string[] args)
    {
        if (args.Length is < 3 or > 4)
        {
            Console.Error.WriteLine($"usage: Cairn.TestChild {Usage}");
            return 2;
        }
        var type = Assembly.LoadFrom(args[0]).GetType(args[1], throwOnError: true)!;
        var probe = type.GetMethod(args[2], BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic)
            ?? throw new MissingMethodException(args[1], args[2]);
        object?[] arguments = args.Length == 4 ? [int.Parse(args[3], CultureInfo.InvariantCulture)] : [];
        try
        {
            long bytes = (long)probe.Invoke(null, arguments)!;
            Console.WriteLine(bytes.ToString(CultureInfo.InvariantCulture));
            return 0;
        }
        catch (TargetInvocationException e) when (e.InnerException is not null)
        {
            Console.Error.WriteLine(e.InnerException);
            return 1;
        }
    }
}
