using System.Reflection;
using Cairn.Extensions.Hosting;
using Cairn.Pal;

namespace Cairn.Tests.Architecture;

/// <summary>
/// Rules of the public surface (docs/api-review.md): every public exception in namespace <c>Cairn</c>,
/// whichever assembly throws it; no public record with a wide positional constructor, which could not
/// grow without breaking its callers.
/// </summary>
public sealed class ApiShapeTests
{
    private const int MaxPositionalParameters = 4;

    private static readonly Assembly[] Published =
        [typeof(StorageEnvironment).Assembly, typeof(PalFile).Assembly, typeof(CairnOptions).Assembly];

    // The PAL's fault injector leaves the public package (issue 26 item 6); its trace record is not reviewed here.
    private static IEnumerable<Type> PublicTypes
        => Published.SelectMany(a => a.GetExportedTypes()).Where(t => t.Namespace != "Cairn.Pal.Testing");

    [Fact]
    public void Every_public_exception_is_in_namespace_Cairn()
    {
        var elsewhere = PublicTypes.Where(t => typeof(Exception).IsAssignableFrom(t) && t.Namespace != "Cairn")
            .Select(t => t.FullName).ToArray();
        Assert.Empty(elsewhere);
        Assert.Contains(PublicTypes, t => t == typeof(DiskFullException));
    }

    [Fact]
    public void No_public_record_has_a_positional_constructor_of_more_than_four_parameters()
    {
        var wide = PublicTypes.Where(IsRecord)
            .SelectMany(t => t.GetConstructors().Select(c => (Type: t, Parameters: c.GetParameters().Length)))
            .Where(c => c.Parameters > MaxPositionalParameters)
            .Select(c => $"{c.Type.FullName} ({c.Parameters} parameters)").ToArray();
        Assert.Empty(wide);
        Assert.Contains(PublicTypes, t => t == typeof(EnvironmentInfo) && IsRecord(t));
    }

    [Fact]
    public void The_data_file_writers_options_default_to_low_priority_however_they_are_made()
    {
        Assert.True(new PalIoOptions().LowPriority);
        Assert.False(new PalIoOptions().ForcePwritev);
        Assert.Equal(0, new PalIoOptions().RingEntries);
    }

    // The compiler gives every record (class or struct) a synthesized, compiler-generated PrintMembers.
    private static bool IsRecord(Type type)
        => type.GetMethod("PrintMembers", BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public) is not null;
}
