using System.Reflection;
using System.Text.RegularExpressions;
using Cairn.Tests.Support;

namespace Cairn.Tests.OptionsModel;

/// <summary>docs/options.md lists exactly the public options of <see cref="StorageOptions"/>, each with its type.</summary>
public sealed partial class OptionsTableTests
{
    [Fact]
    public void The_options_table_lists_exactly_the_public_settable_options_with_their_types()
    {
        string table = File.ReadAllText(Path.Combine(TestDirectory.RepositoryRoot, "docs", "options.md"));
        var documented = Row().Matches(table).ToDictionary(m => m.Groups["name"].Value, m => m.Groups["type"].Value);
        var options = OptionValues.Settable().ToDictionary(p => p.Name, TypeName);

        Assert.Equal(options.Keys.Order(), documented.Keys.Order());
        foreach (var (name, type) in options)
            Assert.True(documented[name] == type, $"docs/options.md says {name} is {documented[name]}, it is {type}");
    }

    private static string TypeName(PropertyInfo option)
    {
        var type = Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType;
        string name = type == typeof(string) ? "string" : type == typeof(long) ? "long" : type == typeof(int) ? "int"
            : type == typeof(bool) ? "bool" : type == typeof(double) ? "double" : type.Name;
        bool nullable = new NullabilityInfoContext().Create(option).ReadState == NullabilityState.Nullable;
        return nullable ? name + "?" : name;
    }

    [GeneratedRegex(@"^\| `(?<name>\w+)` \| `(?<type>[\w?]+)` \|", RegexOptions.Multiline)]
    private static partial Regex Row();
}
