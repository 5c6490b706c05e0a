using System.Runtime.CompilerServices;
using Cairn.Paging;

namespace Cairn.Tests.Support;

/// <summary>
/// How much the dirty-range check did in a test run: with <c>CAIRN_DIRTY_RANGE_REPORT</c> set to a file path, the
/// test host appends the pages it checked and the misses it found when it exits (child processes are not counted).
/// </summary>
internal static class DirtyRangeReport
{
    public const string VariableName = "CAIRN_DIRTY_RANGE_REPORT";

    [ModuleInitializer]
    internal static void Register()
    {
        if (System.Environment.GetEnvironmentVariable(VariableName) is not { Length: > 0 } path)
            return;
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
            File.AppendAllText(path, $"{DateTime.UtcNow:O} checks {(DirtyRangeChecks.Enabled ? "on" : "off")}: " +
                $"{DirtyRangeChecks.PagesChecked} pages checked, {DirtyRangeChecks.Misses} misses\n");
    }
}
