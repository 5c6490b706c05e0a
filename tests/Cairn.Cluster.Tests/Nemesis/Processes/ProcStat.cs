using System.Globalization;

namespace Cairn.Cluster.Tests.Nemesis.Processes;

/// <summary>
/// A process as /proc/&lt;pid&gt;/stat shows it. The state letter is the only proof that SIGSTOP took effect
/// (the signal is queued, not acted on, when kill returns); the start time tells a process from a later one
/// that reused its pid.
/// </summary>
internal readonly record struct ProcStat(int Pid, char State, int ProcessGroup, ulong StartTime)
{
    public bool IsStopped => State == 'T';

    /// <summary>Dead and waiting to be reaped: it runs nothing and holds no files.</summary>
    public bool IsZombie => State is 'Z' or 'X';

    public static ProcStat? Read(int pid)
    {
        string text;
        try
        {
            text = File.ReadAllText($"/proc/{pid}/stat");
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException or IOException)
        {
            return null; // gone, or going while we read
        }
        // The command name (field 2) is in parentheses and may hold spaces and parentheses: fields follow the last ')'.
        int close = text.LastIndexOf(')');
        if (close < 0)
            return null;
        var fields = text[(close + 2)..].Split(' ');
        // fields[0] is field 3 (state), [2] is field 5 (pgrp), [19] is field 22 (starttime).
        return new ProcStat(
            pid,
            fields[0][0],
            int.Parse(fields[2], CultureInfo.InvariantCulture),
            ulong.Parse(fields[19], CultureInfo.InvariantCulture));
    }

    /// <summary>Every process now in group <paramref name="group"/>, zombies included.</summary>
    public static IReadOnlyList<ProcStat> InGroup(int group)
    {
        var members = new List<ProcStat>();
        foreach (var entry in Directory.EnumerateDirectories("/proc"))
        {
            if (int.TryParse(Path.GetFileName(entry), NumberStyles.None, CultureInfo.InvariantCulture, out int pid)
                && Read(pid) is { } stat && stat.ProcessGroup == group)
                members.Add(stat);
        }
        return members;
    }

    /// <summary>The members of <paramref name="group"/> that still run (not zombies).</summary>
    public static IReadOnlyList<ProcStat> LiveInGroup(int group) => InGroup(group).Where(p => !p.IsZombie).ToList();

    public override string ToString() => $"pid {Pid} state {State}";
}
