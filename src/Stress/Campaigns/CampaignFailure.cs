namespace Cairn.Stress.Campaigns;

/// <summary>A violation, already counted: the campaign stops here and reports it (the expected state may no longer match the disk).</summary>
internal sealed class CampaignFailure(string message) : Exception(message);
