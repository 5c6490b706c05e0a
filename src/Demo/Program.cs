using Cairn.Demo;

return DemoCommand.Run(args);
