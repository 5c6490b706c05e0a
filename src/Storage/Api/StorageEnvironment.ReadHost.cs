using Cairn.Transactions;

namespace Cairn;

public sealed partial class StorageEnvironment : IReadHost
{
    string IReadHost.DataFilePath => DataFilePath;

    void IReadHost.EndRead(ReadContext context) => EndRead(context);
}
