using System.Reflection;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Cairn.Tests.OptionsModel;

/// <summary>
/// An option's XML documentation as a reader sees it, from the XML file the build writes beside each library (and
/// copies into the test's output): the summary's text, each <c>&lt;see cref&gt;</c> as the member's name.
/// </summary>
internal static partial class OptionDocs
{
    private static readonly Dictionary<Assembly, XDocument> s_files = [];

    /// <summary>The summary of <paramref name="option"/> as plain text, or null if it has none.</summary>
    public static string? Summary(PropertyInfo option)
    {
        var type = option.DeclaringType!;
        string member = $"P:{type.FullName}.{option.Name}";
        var summary = File(type.Assembly).Descendants("member")
            .FirstOrDefault(m => (string?)m.Attribute("name") == member)?.Element("summary");
        return summary is null ? null : Whitespace().Replace(Text(summary), " ").Trim();
    }

    /// <summary>What follows <c>Default: </c> in the summary, or null.</summary>
    public static string? StatedDefault(string summary)
        => DefaultSentence().Match(summary) is { Success: true } m ? m.Groups["value"].Value : null;

    /// <summary>The unit <c>Unit: </c> names in the summary (up to <c>;</c>, <c>,</c> or <c>.</c>), or null.</summary>
    public static string? StatedUnit(string summary)
        => UnitSentence().Match(summary) is { Success: true } m ? m.Groups["unit"].Value.Trim() : null;

    private static XDocument File(Assembly assembly)
    {
        lock (s_files)
        {
            if (!s_files.TryGetValue(assembly, out var file))
            {
                string path = Path.ChangeExtension(assembly.Location, ".xml");
                Assert.True(System.IO.File.Exists(path), $"{path} is missing: the library must generate its XML documentation");
                s_files[assembly] = file = XDocument.Load(path);
            }
            return file;
        }
    }

    private static string Text(XElement element) => string.Concat(element.Nodes().Select(node => node switch
    {
        XText text => text.Value,
        XElement { Name.LocalName: "see" or "seealso" } see => Referenced(see),
        XElement { Name.LocalName: "paramref" or "typeparamref" } reference => (string?)reference.Attribute("name") ?? "",
        XElement inner => Text(inner),
        _ => "",
    }));

    // <see cref="F:Cairn.CommitMode.Durable"/> reads as Durable, <see langword="null"/> as null.
    private static string Referenced(XElement see)
    {
        if ((string?)see.Attribute("langword") is { } word)
            return word;
        string cref = (string?)see.Attribute("cref") ?? "";
        string name = cref.Split('(')[0];
        return see.Nodes().Any() ? Text(see) : name[(name.LastIndexOf('.') + 1)..];
    }

    [GeneratedRegex(@"\s+")]
    private static partial Regex Whitespace();

    [GeneratedRegex(@"\bDefault: (?<value>.+)$")]
    private static partial Regex DefaultSentence();

    [GeneratedRegex(@"\bUnit: (?<unit>[^;,.]+)")]
    private static partial Regex UnitSentence();
}
