namespace Cairn.Tests.OptionsModel;

/// <summary>
/// docs/options.md lists exactly the public options of every public options type, each with its type and the
/// default a new options object has.
/// </summary>
public sealed class OptionsTableTests
{
    private static readonly IReadOnlyDictionary<string, IReadOnlyDictionary<string, OptionsTableRow>> s_table = OptionsTable.Read();

    [Fact]
    public void The_table_has_a_section_for_each_options_type_and_no_other()
        => Assert.Equal(OptionsTypes.WithSettableOptions.Select(t => t.Name).Order(), s_table.Keys.Order());

    [Theory]
    [MemberData(nameof(OptionsTypes.Names), MemberType = typeof(OptionsTypes))]
    public void The_options_table_lists_exactly_the_public_settable_options_with_their_types(string typeName)
    {
        var type = OptionsTypes.Named(typeName);
        Assert.True(s_table.TryGetValue(typeName, out var rows), $"docs/options.md has no section '## `{typeName}`'");
        var options = OptionsTypes.Settable(type).ToDictionary(p => p.Name, OptionsTypes.TypeName);

        Assert.Equal(options.Keys.Order(), rows.Keys.Order());
        foreach (var (name, optionType) in options)
            Assert.True(rows[name].Type == optionType, $"docs/options.md says {typeName}.{name} is {rows[name].Type}, it is {optionType}");
    }

    [Theory]
    [MemberData(nameof(OptionsTypes.Names), MemberType = typeof(OptionsTypes))]
    public void The_options_table_states_the_default_a_new_options_object_has(string typeName)
    {
        var type = OptionsTypes.Named(typeName);
        object fresh = OptionsTypes.Fresh(type);
        var rows = s_table.GetValueOrDefault(typeName) ?? new Dictionary<string, OptionsTableRow>();

        var wrong = OptionsTypes.Settable(type)
            .Where(p => rows.ContainsKey(p.Name))
            .Select(p => (p.Name, Why: StatedDefault.Mismatch(rows[p.Name].Default, p, fresh)))
            .Where(r => r.Why is not null)
            .Select(r => $"{typeName}.{r.Name}: {r.Why}")
            .ToList();
        Assert.True(wrong.Count == 0, "docs/options.md states wrong defaults:\n" + string.Join("\n", wrong));
    }
}
