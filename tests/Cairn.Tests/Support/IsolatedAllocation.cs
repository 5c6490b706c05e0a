using System.Globalization;
using System.Reflection;

namespace Cairn.Tests.Support;

/// <summary>
/// Runs an allocation probe of this assembly in a test child of its own (<c>allocation-probe</c>)
/// and returns the bytes it reports. In the test host, other tests run alongside: they keep the
/// runtime busy (tier-0 compilation that postpones tier-1 promotion, collections, thread-pool
/// growth), and the runtime's own one-off work can land on the measuring thread. In a child, the
/// probe is the only work. A probe is a static method of a test class returning
/// <see cref="SteadyStateAllocation.Measure"/>'s result (see docs/decisions.md, issue 12).
/// </summary>
public static class IsolatedAllocation
{
    public static long Measure(Func<long> probe) => Run(probe.Method);

    public static long Measure(Func<int, long> probe, int argument)
        => Run(probe.Method, argument.ToString(CultureInfo.InvariantCulture));

    private static long Run(MethodInfo probe, params string[] arguments)
    {
        if (!probe.IsStatic || probe.DeclaringType?.FullName is not { } type)
            throw new ArgumentException($"{probe.Name}: a probe is a static method of a named type", nameof(probe));
        string output = ChildProcess.Run(["allocation-probe", probe.DeclaringType.Assembly.Location, type, probe.Name, .. arguments]);
        return long.Parse(output.Trim(), CultureInfo.InvariantCulture);
    }
}
