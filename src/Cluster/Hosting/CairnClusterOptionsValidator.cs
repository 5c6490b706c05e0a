using Microsoft.Extensions.Options;

namespace Cairn.Cluster.Hosting;

/// <summary>
/// Validates a named <see cref="CairnClusterOptions"/> the way <see cref="ClusterNode.StartAsync"/> will
/// (<see cref="ClusterNodeOptions.Validate"/>, and the node's <see cref="StorageOptions.Validate"/>), so that with
/// <c>ValidateOnStart</c> a bad setting stops the host at start naming the node and the option.
/// </summary>
internal sealed class CairnClusterOptionsValidator(string registrationName) : IValidateOptions<CairnClusterOptions>
{
    public ValidateOptionsResult Validate(string? name, CairnClusterOptions options)
    {
        if (name != registrationName)
            return ValidateOptionsResult.Skip;
        if (options.Node is not { } node)
            return ValidateOptionsResult.Fail(MissingNode(name));
        try
        {
            node.Validate();
            // The node puts its environment in its own data/ folder, whatever the template says.
            (node.Storage is { } storage ? storage with { DirectoryPath = node.DirectoryPath } : null)?.Validate();
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            return ValidateOptionsResult.Fail($"Cairn cluster node '{name}': {e.Message}");
        }

        return ValidateOptionsResult.Success;
    }

    public static string MissingNode(string registrationName)
        => $"Cairn cluster node '{registrationName}': Node (with DirectoryPath, LocalEndPoint and Members) is required.";
}
