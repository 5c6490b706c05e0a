using Cairn;
using Cairn.Stress;
using Cairn.TestChild;

// Commands (one per run):
//   hold-open DIR   open the environment, print "opened", wait until standard input closes, dispose.
//   try-open DIR    try to open it; print "opened" or "locked: <message>"; exit 0 either way.
//   stress-child ARGS…   the child of a stress campaign (Cairn.Stress.StressChild), which the crash tests kill.
//   merger-allocations DIR   see MergerAllocationCommand.
//   allocation-probe ASSEMBLY TYPE METHOD [ARGUMENT]   see AllocationProbeCommand.
//   ship-primary PRIMARY SPOOL ROUND AFTER   see ShipPrimaryCommand (the replica crash test kills it).
//   ship-replica REPLICA SPOOL   see ShipReplicaCommand (the replica crash test kills it).
//   restore-until BACKUP TARGET BYTES   see RestoreUntilCommand.
//   backup-until ENV KIND TARGET PAUSE   see BackupUntilCommand.
//   fill-disk DIR   see FillDiskCommand (the full-disk kill test kills it).
if (args.Length >= 1 && args[0] == "stress-child")
    return StressChild.Run(args[1..]);
if (args.Length == 2 && args[0] == "merger-allocations")
    return MergerAllocationCommand.Run(args[1]);
if (args.Length == 5 && args[0] == "ship-primary")
    return ShipPrimaryCommand.Run(args[1], args[2], int.Parse(args[3], System.Globalization.CultureInfo.InvariantCulture),
        long.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture));
if (args.Length == 3 && args[0] == "ship-replica")
    return ShipReplicaCommand.Run(args[1], args[2]);
if (args.Length == 4 && args[0] == "restore-until")
    return RestoreUntilCommand.Run(args[1], args[2], long.Parse(args[3], System.Globalization.CultureInfo.InvariantCulture));
if (args.Length == 5 && args[0] == "backup-until")
    return BackupUntilCommand.Run(args[1], args[2], args[3], args[4]);
if (args.Length == 2 && args[0] == "fill-disk")
    return FillDiskCommand.Run(args[1]);
if (args.Length >= 1 && args[0] == "allocation-probe")
    return AllocationProbeCommand.Run(args[1..]);

if (args.Length != 2)
{
    Console.Error.WriteLine("usage: Cairn.TestChild hold-open|try-open DIRECTORY");
    Console.Error.WriteLine("       Cairn.TestChild stress-child ARGUMENTS (written by a stress campaign)");
    Console.Error.WriteLine($"       Cairn.TestChild {AllocationProbeCommand.Usage}");
    return 2;
}

switch (args[0])
{
    case "hold-open":
        using (StorageEnvironment.Open(new StorageOptions(args[1])))
        {
            Console.WriteLine("opened");
            Console.Out.Flush();
            Console.In.ReadToEnd();
        }
        return 0;
    case "try-open":
        try
        {
            using var env = StorageEnvironment.Open(new StorageOptions(args[1]));
            Console.WriteLine("opened");
        }
        catch (EnvironmentLockedException e)
        {
            Console.WriteLine($"locked: {e.Message}");
        }
        return 0;
    default:
        Console.Error.WriteLine($"unknown command '{args[0]}'");
        return 2;
}
