using System.Reflection;
using NetArchTest.Rules;

namespace Cairn.Tests.Architecture;

/// <summary>
/// The engine's layers, lowest first. A type may use types of its own group and of lower layers, never of
/// a higher layer or of another group in its own layer: data flows up (a page becomes a journal record, a
/// transaction, a commit), calls reach down, and nothing below knows what stands on it.
/// </summary>
public class LayerTests
{
    /// <summary>
    /// Each layer is a list of groups; a group is a namespace with its sub-namespaces, except those that are
    /// groups of their own (<c>Cairn.Journal.Sharing</c> stands above <c>Cairn.Journal</c>). The root namespace
    /// <c>Cairn</c> is split: its exceptions and result records are contracts every layer may throw or
    /// return (the bottom); everything else in it is the public API (the top).
    /// </summary>
    private static readonly string[][] s_layers =
    [
        ["Cairn.Hashing", Contracts],
        ["Cairn.Diagnostics"],
        ["Cairn.Errors"],
        ["Cairn.Paging"],
        ["Cairn.Journal", "Cairn.FreeSpace", "Cairn.Trees"],
        // Journal groups share the root's journal files: they use the journal, which knows nothing of them.
        ["Cairn.Journal.Sharing"],
        ["Cairn.Transactions"],
        ["Cairn.Commit", "Cairn.Flushing", "Cairn.Recovery", "Cairn.Verification", "Cairn.Shipping"],
        ["Cairn.Opening", "Cairn.Backups"],
        ["Cairn.Merger"],
        [Api],
    ];

    private const string Contracts = "Cairn (exceptions and result records)";
    private const string Api = "Cairn (public API)";

    private static readonly Assembly s_engine = typeof(StorageEnvironment).Assembly;

    public static TheoryData<string> Groups()
    {
        var data = new TheoryData<string>();
        foreach (var group in s_layers.SelectMany(l => l))
            data.Add(group);
        return data;
    }

    [Theory]
    [MemberData(nameof(Groups))]
    public void A_group_uses_only_itself_and_lower_layers(string group)
    {
        int layer = Array.FindIndex(s_layers, l => l.Contains(group));
        var forbidden = s_layers.Skip(layer).SelectMany(l => l).Where(g => g != group).SelectMany(TypeNamesOrNamespace).ToArray();
        if (forbidden.Length == 0)
            return; // the top layer may use everything below it
        var result = Select(group).ShouldNot().HaveDependencyOnAny(forbidden).GetResult();
        Assert.True(result.IsSuccessful,
            $"{group} (layer {layer}) uses a higher layer or a sideways group: " + string.Join(", ", result.FailingTypeNames ?? []));
    }

    /// <summary>
    /// The checksum on disk is chosen in one place: only <c>Cairn.Hashing</c> (its <c>Checksums</c>) calls
    /// System.IO.Hashing, so no caller can hash with another algorithm or seed convention by itself.
    /// </summary>
    [Fact]
    public void Only_the_hashing_layer_uses_System_IO_Hashing()
    {
        var elsewhere = Types.InAssembly(s_engine).That().DoNotResideInNamespace("Cairn.Hashing")
            .ShouldNot().HaveDependencyOn("System.IO.Hashing").GetResult();
        Assert.True(elsewhere.IsSuccessful, "System.IO.Hashing is used outside Cairn.Hashing by " + string.Join(", ", elsewhere.FailingTypeNames ?? []));
        // The rule sees the package at all: the one place that should use it does.
        Assert.True(Types.InAssembly(s_engine).That().HaveName("Checksums").Should().HaveDependencyOn("System.IO.Hashing").GetResult().IsSuccessful);
    }

    private static PredicateList Select(string group) => group switch
    {
        Contracts => Types.InAssembly(s_engine).That().ResideInNamespaceMatching("^Cairn$").And().MeetCustomRule(new IsContract()),
        Api => Types.InAssembly(s_engine).That().ResideInNamespaceMatching("^Cairn$").And().MeetCustomRule(new IsApi()),
        // The namespace and its sub-namespaces only: ResideInNamespace matches by prefix, which would take the
        // public Cairn.CommitMode for a member of Cairn.Commit.
        _ => SubGroupsOf(group).Aggregate(
            Types.InAssembly(s_engine).That().ResideInNamespaceMatching(NamespaceAndBelow(group)),
            (types, subGroup) => types.And().DoNotResideInNamespaceMatching(NamespaceAndBelow(subGroup))),
    };

    private static string NamespaceAndBelow(string group) => "^" + System.Text.RegularExpressions.Regex.Escape(group) + @"(\..+)?$";

    /// <summary>The groups that are sub-namespaces of <paramref name="group"/>: their types are theirs, not its.</summary>
    private static IEnumerable<string> SubGroupsOf(string group)
        => s_layers.SelectMany(l => l).Where(g => g.StartsWith(group + ".", StringComparison.Ordinal));

    /// <summary>What to forbid for a group: its namespace, or (for the two halves of the root namespace) its types by name.</summary>
    private static IEnumerable<string> TypeNamesOrNamespace(string group) => group switch
    {
        Contracts => RootTypes().Where(IsContract.Check).Select(t => t.FullName!),
        Api => RootTypes().Where(t => !IsContract.Check(t)).Select(t => t.FullName!),
        _ => [group],
    };

    private static IEnumerable<Type> RootTypes() => s_engine.GetTypes().Where(t => t.Namespace == "Cairn" && !t.IsNested);

    private sealed class IsApi : ICustomRule
    {
        public bool MeetsRule(Mono.Cecil.TypeDefinition type) => !new IsContract().MeetsRule(type);
    }

    private sealed class IsContract : ICustomRule
    {
        public bool MeetsRule(Mono.Cecil.TypeDefinition type)
            => Check(s_engine.GetType(type.FullName.Replace('/', '+'))!);

        public static bool Check(Type type)
        {
            var outer = type;
            while (outer.DeclaringType is not null)
                outer = outer.DeclaringType;
            return typeof(Exception).IsAssignableFrom(outer) || outer == typeof(VerificationReport);
        }
    }
}
