// A host that takes orders from concurrent clients into a Cairn environment, checks its health while it
// runs, and stops by itself: `dotnet run --project samples/HostedOrders [-- --Orders:Seconds=10]`.
// Everything Cairn needs comes from the host: configuration ("Cairn:Orders"), logging, metrics, lifetime.
using Cairn.Samples.HostedOrders;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

// appsettings.json sits beside the program, wherever it is started from.
var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
builder.Services.AddCairn(OrderBook.EnvironmentName, builder.Configuration.GetSection("Cairn:Orders"));
builder.Services.AddHealthChecks().AddCairnCheck(OrderBook.EnvironmentName);
builder.Services.Configure<OrderSettings>(builder.Configuration.GetSection("Orders"));
builder.Services.AddHostedService<OrderTaker>();

using var host = builder.Build();
await host.RunAsync();
return Environment.ExitCode;
