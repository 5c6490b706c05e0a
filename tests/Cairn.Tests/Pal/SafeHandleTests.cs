using System.Runtime.CompilerServices;
using Cairn.Pal;
using Cairn.Tests.Support;

namespace Cairn.Tests.Pal;

public class SafeHandleTests
{
    [Fact]
    public void Disposing_a_file_closes_its_descriptor()
    {
        using var dir = new TestDirectory("handle-dispose");
        var path = dir.File("data");
        var file = PalFile.Open(path, PalOpenFlags.Create);
        Assert.Equal(1, ProcessFiles.OpenDescriptorsFor(path));

        file.Dispose();

        Assert.Equal(0, ProcessFiles.OpenDescriptorsFor(path));
        Assert.Throws<ObjectDisposedException>(() => file.GetSize());
    }

    [Fact]
    public void A_forgotten_file_is_closed_by_its_finalizer()
    {
        using var dir = new TestDirectory("handle-finalize");
        var path = dir.File("data");
        // Counted inside: any test running in parallel may trigger a GC as soon as the file is dropped.
        Assert.Equal(1, OpenAndForget(path));

        for (int i = 0; i < 10 && ProcessFiles.OpenDescriptorsFor(path) > 0; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.Equal(0, ProcessFiles.OpenDescriptorsFor(path));
    }

    [Fact]
    public void Disposing_a_mapping_unmaps_it_even_after_the_file_closed()
    {
        using var dir = new TestDirectory("handle-map");
        var path = dir.File("data");
        PalMapping mapping;
        using (var file = PalFile.Open(path, PalOpenFlags.Create))
        {
            file.Write(Enumerable.Range(0, 8192).Select(i => (byte)i).ToArray(), 0);
            mapping = file.Map(8192);
        }
        Assert.Equal(1, ProcessFiles.MappingsOf(path));
        Assert.Equal((byte)77, mapping.GetSpan(77, 1)[0]);

        mapping.Dispose();

        Assert.Equal(0, ProcessFiles.MappingsOf(path));
        Assert.Throws<ObjectDisposedException>(() => mapping.GetSpan(0, 1));
    }

    /// <summary>Opens the file, drops it without disposing, and returns how many descriptors it had open.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int OpenAndForget(string path)
    {
        var file = PalFile.Open(path, PalOpenFlags.Create);
        int open = ProcessFiles.OpenDescriptorsFor(path);
        GC.KeepAlive(file);
        return open;
    }
}
