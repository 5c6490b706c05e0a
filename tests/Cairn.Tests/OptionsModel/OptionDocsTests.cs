namespace Cairn.Tests.OptionsModel;

/// <summary>
/// Each option's XML doc (what IntelliSense and the API site show) states its default, the value a new options object
/// has, and a number states its unit, the one docs/options.md gives.
/// </summary>
public sealed class OptionDocsTests
{
    [Theory]
    [MemberData(nameof(OptionsTypes.Names), MemberType = typeof(OptionsTypes))]
    public void Each_options_XML_doc_states_its_default_and_a_numbers_unit_as_the_table_does(string typeName)
    {
        var type = OptionsTypes.Named(typeName);
        var rows = OptionsTable.Read().GetValueOrDefault(typeName) ?? new Dictionary<string, OptionsTableRow>();
        object fresh = OptionsTypes.Fresh(type);
        var wrong = new List<string>();

        foreach (var option in OptionsTypes.Settable(type))
        {
            string name = $"{typeName}.{option.Name}";
            string? summary = OptionDocs.Summary(option);
            if (summary is null)
            {
                wrong.Add($"{name}: no <summary>");
                continue;
            }
            if (OptionDocs.StatedDefault(summary) is not { } stated)
                wrong.Add($"{name}: the summary states no 'Default: …'");
            else if (StatedDefault.Mismatch(stated, option, fresh) is { } why)
                wrong.Add($"{name}: the summary's default {why}");

            if (!OptionsTypes.IsNumber(option))
                continue;
            string? unit = OptionDocs.StatedUnit(summary);
            if (unit is null)
                wrong.Add($"{name}: a number, and the summary states no 'Unit: …'");
            else if (rows.TryGetValue(option.Name, out var row) && row.UnitTerm != unit)
                wrong.Add($"{name}: the summary's unit is '{unit}', docs/options.md's '{row.UnitTerm}'");
        }
        Assert.True(wrong.Count == 0, string.Join("\n", wrong));
    }
}
