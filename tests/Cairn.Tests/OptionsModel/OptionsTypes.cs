using System.Reflection;
using Cairn.Extensions.Hosting;
using Cairn.Pal;

namespace Cairn.Tests.OptionsModel;

/// <summary>
/// The public options types of the documented libraries (every public type named <c>…Options</c>), found by
/// reflection so a new one cannot be left out of docs/options.md, and their public settable options.
/// </summary>
internal static class OptionsTypes
{
    private static readonly Assembly[] s_libraries =
    [
        typeof(StorageOptions).Assembly, typeof(PalIoOptions).Assembly, typeof(CairnOptions).Assembly,
        Assembly.Load("Cairn.Reports"), Assembly.Load("Cairn.Pal.Testing"),
    ];

    /// <summary>Every public options type that has at least one public settable option.</summary>
    public static IReadOnlyList<Type> WithSettableOptions { get; } = s_libraries
        .SelectMany(a => a.GetExportedTypes())
        .Where(t => t.Name.EndsWith("Options", StringComparison.Ordinal) && Settable(t).Any())
        .OrderBy(t => t.Name, StringComparer.Ordinal)
        .ToArray();

    /// <summary>The names of <see cref="WithSettableOptions"/>, one test case each.</summary>
    public static TheoryData<string> Names => new(WithSettableOptions.Select(t => t.Name));

    /// <summary>The options type of that name.</summary>
    public static Type Named(string name) => WithSettableOptions.Single(t => t.Name == name);

    /// <summary>Every public instance property with a public setter (init included).</summary>
    public static IEnumerable<PropertyInfo> Settable(Type type)
        => type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.SetMethod is { IsPublic: true });

    /// <summary>A new object of <paramref name="type"/>, every option at its default (a required one left unset).</summary>
    public static object Fresh(Type type)
        => Activator.CreateInstance(type)
           ?? throw new InvalidOperationException($"{type.Name} has no public parameterless constructor: say how a test gets its defaults");

    /// <summary>Whether <paramref name="option"/> is a C# <c>required</c> member (it has no default).</summary>
    public static bool IsRequired(PropertyInfo option)
        => option.CustomAttributes.Any(a => a.AttributeType.FullName == "System.Runtime.CompilerServices.RequiredMemberAttribute");

    /// <summary>The type as docs/options.md writes it: C# keywords, generic arguments, <c>?</c> where nullable.</summary>
    public static string TypeName(PropertyInfo option)
    {
        var type = Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType;
        bool nullable = new NullabilityInfoContext().Create(option).ReadState == NullabilityState.Nullable;
        return nullable ? Name(type) + "?" : Name(type);
    }

    /// <summary>Whether the option is a number (its docs state a unit) rather than a duration, flag, text or object.</summary>
    public static bool IsNumber(PropertyInfo option)
    {
        var type = Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType;
        return type == typeof(int) || type == typeof(long) || type == typeof(double);
    }

    /// <summary>Whether the option is a duration.</summary>
    public static bool IsDuration(PropertyInfo option)
        => (Nullable.GetUnderlyingType(option.PropertyType) ?? option.PropertyType) == typeof(TimeSpan);

    private static string Name(Type type)
    {
        if (type.IsGenericType)
            return $"{type.Name[..type.Name.IndexOf('`')]}<{string.Join(", ", type.GetGenericArguments().Select(Name))}>";
        return type == typeof(string) ? "string" : type == typeof(long) ? "long" : type == typeof(int) ? "int"
            : type == typeof(bool) ? "bool" : type == typeof(double) ? "double" : type.Name;
    }
}
