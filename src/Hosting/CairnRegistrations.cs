namespace Cairn.Extensions.Hosting;

/// <summary>The environments registered with <c>AddCairn</c>, in registration order.</summary>
internal sealed class CairnRegistrations
{
    public List<string> Names { get; } = [];
}
