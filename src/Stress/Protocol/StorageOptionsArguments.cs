using System.Globalization;
using System.Reflection;
using Microsoft.Extensions.Configuration;

namespace Cairn.Stress.Protocol;

/// <summary>
/// The engine's <see cref="StorageOptions"/> on a child's command line, derived from the options themselves: every
/// public settable option that differs from its default becomes <c>--storage:Name value</c>, read back by the same
/// configuration binding a host uses. A new option travels to the child with no edit here. Not passed:
/// <see cref="StorageOptions.DirectoryPath"/> (each environment has its own) and objects (logger and meter
/// factories), which the child supplies itself.
/// </summary>
internal static class StorageOptionsArguments
{
    public const string Prefix = "--storage:";

    private static readonly StorageOptions s_defaults = new(".");

    /// <summary>The options that travel as text: public, settable, a value rather than a service object.</summary>
    public static IEnumerable<PropertyInfo> Options { get; } = typeof(StorageOptions)
        .GetProperties(BindingFlags.Public | BindingFlags.Instance)
        .Where(p => p.SetMethod is { IsPublic: true } && p.Name != nameof(StorageOptions.DirectoryPath) && !p.PropertyType.IsInterface)
        .ToArray();

    public static IEnumerable<string> ToArguments(StorageOptions options)
    {
        foreach (var option in Options)
        {
            object? value = option.GetValue(options);
            if (Equals(value, option.GetValue(s_defaults)))
                continue;
            yield return Prefix + option.Name;
            yield return Text(option, value ?? throw new ArgumentException($"StorageOptions.{option.Name}: a null over a non-null default cannot be passed"));
        }
    }

    /// <summary>Takes the <c>--storage:</c> arguments out of <paramref name="arguments"/>: the options they set, the rest at their defaults.</summary>
    public static StorageOptions Take(Arguments arguments, string directoryPath)
    {
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(arguments.TakePrefixed(Prefix).Select(p => KeyValuePair.Create<string, string?>(p.Name, p.Value)))
            .Build();
        var options = new StorageOptions(directoryPath);
        try
        {
            configuration.Bind(options, binder => binder.ErrorOnUnknownConfiguration = true);
        }
        catch (InvalidOperationException e)
        {
            // An unknown name or a value that does not parse: a mistake on the command line, as the other options' are.
            throw new ArgumentException($"bad {Prefix} option: {e.Message}", e);
        }
        return options;
    }

    private static string Text(PropertyInfo option, object value) => value switch
    {
        TimeSpan t => t.ToString("c", CultureInfo.InvariantCulture),
        Enum e => e.ToString(),
        string s => s,
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => throw new NotSupportedException($"StorageOptions.{option.Name} is a {option.PropertyType}: say how it is passed as text"),
    };
}
