namespace Cairn.Cli;

/// <summary>What the process's exit code means, for every command (the root command's help lists them).</summary>
internal static class ExitCodes
{
    public const int Success = 0;

    /// <summary>The environment is damaged, or a check found a violation: the output names the file and offset.</summary>
    public const int Damage = 1;

    /// <summary>The command line is wrong: an unknown command or option, a missing argument, a tree that does not exist.</summary>
    public const int Usage = 2;

    /// <summary>Nothing to look at could be opened or read: no such directory or file, not an environment, locked by another process, an I/O error.</summary>
    public const int IoFailure = 3;

    /// <summary>Anything else: a bug in the tool or the engine (the message says what was thrown).</summary>
    public const int Unexpected = 4;

    public const string Help = """
        Exit codes: 0 success; 1 damage or a violation found (the file and offset are printed); 2 usage error
        (bad arguments, unknown tree); 3 I/O or open failure (no such directory or file, not a Cairn environment,
        opened by another process, an I/O error); 4 unexpected error (a bug: please report the message).
        """;
}
