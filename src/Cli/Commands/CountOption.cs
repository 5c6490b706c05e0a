using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;

namespace Cairn.Cli.Commands;

/// <summary>An option that takes a count (a whole number, 0 or more): anything else is a usage error naming the option.</summary>
internal static class CountOption
{
    public static Option<long?> Create(string name, string alias, string description) => new(name, alias)
    {
        Description = description,
        CustomParser = Parse,
    };

    private static long? Parse(ArgumentResult result)
    {
        string text = result.Tokens.Count > 0 ? result.Tokens[0].Value : "";
        if (long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long value))
            return value;
        result.AddError($"'{text}' is not a count (a whole number, 0 or more).");
        return null;
    }
}
