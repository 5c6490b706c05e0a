using Cairn.Stress;
using Cairn.Stress.Protocol;

namespace Cairn.Tests.OptionsModel;

/// <summary>The stress child opens its environments with exactly the engine options the parent chose: every one of them.</summary>
public sealed class ChildOptionsTests
{
    [Fact]
    public void Every_option_but_the_directory_round_trips_through_the_child_command_line()
    {
        var defaults = new StorageOptions("/srv/stress");
        var engine = new StorageOptions("/srv/stress");
        var options = OptionValues.Configurable().Where(p => p.Name != nameof(StorageOptions.DirectoryPath)).ToList();
        foreach (var option in options)
            option.SetValue(engine, OptionValues.Different(option, defaults));
        var settings = new ChildSettings("/srv/stress", 7, new WorkloadShape(), 0, [1], [0], 0,
            new StorageSettings { Engine = engine, CommitsLazily = true });

        var child = ChildSettings.Parse(settings.ToArguments());

        var lost = options.Where(p => !Equals(p.GetValue(child.Storage.Engine), p.GetValue(engine))).Select(p => p.Name).ToList();
        Assert.True(lost.Count == 0, $"not passed to the child: {string.Join(", ", lost)}");
        Assert.True(child.Storage.CommitsLazily);
        Assert.Equal(engine with { DirectoryPath = "/srv/stress/env" }, child.Storage.ToStorageOptions("/srv/stress/env"));
    }

    [Theory]
    [InlineData(StorageProfile.Flushing)]
    [InlineData(StorageProfile.NotFlushing)]
    [InlineData(StorageProfile.Default)]
    public void Each_profile_reaches_the_child_as_the_parent_checks_it(StorageProfile profile)
    {
        var storage = StorageSettings.For(profile, null);
        var settings = new ChildSettings("/srv/stress", 7, new WorkloadShape(), 0, [1], [0], 0, storage);

        var child = ChildSettings.Parse(settings.ToArguments());

        Assert.Equal(storage.ToStorageOptions("/srv/stress/root"), child.Storage.ToStorageOptions("/srv/stress/root"));
    }

    [Fact]
    public void An_unknown_storage_option_on_the_command_line_is_refused()
    {
        var arguments = new ChildSettings("/srv/stress", 7, new WorkloadShape(), 0, [1], [0], 0, StorageSettings.Default)
            .ToArguments().Concat(["--storage:NoSuchOption", "1"]).ToList();

        Assert.Contains("NoSuchOption", Assert.Throws<ArgumentException>(() => ChildSettings.Parse(arguments)).Message);
    }
}
