using Microsoft.Extensions.Options;

namespace Cairn.Extensions.Hosting;

/// <summary>
/// Validates a named <see cref="CairnOptions"/> the way <see cref="StorageEnvironment.Open"/> will
/// (<see cref="StorageOptions.Validate"/>), plus the health-check thresholds, so that with
/// <c>ValidateOnStart</c> a bad setting stops the host at start naming the environment and the option.
/// </summary>
internal sealed class CairnOptionsValidator(string registrationName) : IValidateOptions<CairnOptions>
{
    public ValidateOptionsResult Validate(string? name, CairnOptions options)
    {
        if (name != registrationName)
            return ValidateOptionsResult.Skip;
        var failures = new List<string>();
        if (string.IsNullOrWhiteSpace(options.Storage?.DirectoryPath))
            failures.Add(CairnEnvironmentSettings.MissingDirectory(name));
        else
        {
            try
            {
                options.Storage.Validate();
            }
            catch (ArgumentException e)
            {
                failures.Add($"Cairn environment '{name}': {e.Message}");
            }
        }
        if (options.ScratchDegradedFraction is <= 0 or > 1 || double.IsNaN(options.ScratchDegradedFraction))
            failures.Add($"Cairn environment '{name}': ScratchDegradedFraction must be in (0, 1], not {options.ScratchDegradedFraction}.");
        if (options.JournalDegradedBytes is <= 0)
            failures.Add($"Cairn environment '{name}': JournalDegradedBytes must be positive, not {options.JournalDegradedBytes}.");
        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
