using Cairn.Demo;

// The crash demo starts this program again as the writer it kills.
if (args is ["--crash-writer", var directory])
    return CrashWriterChild.Run(directory);
return DemoCommand.Run(args);
