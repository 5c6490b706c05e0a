namespace Cairn.Tests.FreeSpace;

/// <summary>
/// Random histories of allocate, free, commit, rollback, release and reopen against a model of sets:
/// which pages are marked free on disk, which can be handed out, which wait for readers. The model
/// predicts every allocation exactly (the lowest start of a free run long enough, else the high-water
/// mark), and every page's two bits are compared after every step. Seeded, so a failure names its
/// seed and step and replays the same way.
/// </summary>
public class FreeSpaceMapModelTests
{
    private const int Steps = 400;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    public void Random_histories_match_a_set_model(int seed)
    {
        var random = new Random(seed);
        using var h = new FreeSpaceHarness();
        var model = new FreeSpaceModel(FreeSpaceHarness.FirstDataPage);

        for (int step = 0; step < Steps; step++)
        {
            string operation = Apply(h, model, random);
            Compare(h, model, $"seed {seed}, step {step} ({operation})");
        }

        // Everything freed is released once no reader is left: an open then rebuilds the same map.
        h.Commit();
        model.Commit();
        foreach (var (page, count) in model.TakeWaiting())
            h.Map.Release(page, count);
        h.Reopen();
        model.Reopen();
        Compare(h, model, $"seed {seed}, reopened at the end");
    }

    private static string Apply(FreeSpaceHarness h, FreeSpaceModel model, Random random)
    {
        int roll = random.Next(100);
        if (roll < 35)
        {
            int count = random.Next(1, 5);
            long expected = model.Allocate(count);
            long page = h.Allocate(count);
            Assert.True(expected == page, $"allocated {count} at {page}, the model expected {expected}");
            return $"allocate {count} at {page}";
        }
        if (roll < 60 && model.Owned.Count > 0)
        {
            var (page, count) = model.Owned[random.Next(model.Owned.Count)];
            model.Free(page, count);
            h.Free(page, count);
            return $"free {count} at {page}";
        }
        if (roll < 75 && model.Waiting.Count > 0)
        {
            var (page, count) = model.Waiting[random.Next(model.Waiting.Count)];
            model.Release(page, count);
            h.Map.Release(page, count);
            return $"release {count} at {page}";
        }
        if (roll < 88)
        {
            model.Commit();
            h.Commit();
            return "commit";
        }
        if (roll < 96)
        {
            model.Rollback();
            h.Rollback();
            return "rollback";
        }
        model.Commit();
        h.Commit();
        model.Reopen();
        h.Reopen();
        return "commit and reopen";
    }

    private static void Compare(FreeSpaceHarness h, FreeSpaceModel model, string where)
    {
        Assert.True(model.Available.Count == h.Map.AvailablePages,
            $"{where}: {h.Map.AvailablePages} pages available, the model has {model.Available.Count}");
        Assert.True(model.NextPageNumber == h.NextPageNumber,
            $"{where}: high-water mark {h.NextPageNumber}, the model has {model.NextPageNumber}");
        for (long page = 0; page < h.NextPageNumber + 70; page++)
        {
            Assert.True(model.Available.Contains(page) == h.Map.IsAvailable(page),
                $"{where}: page {page} available: map {h.Map.IsAvailable(page)}, model {model.Available.Contains(page)}");
            Assert.True(model.MarkedFree.Contains(page) == h.IsMarkedFree(page),
                $"{where}: page {page} marked free: map {h.IsMarkedFree(page)}, model {model.MarkedFree.Contains(page)}");
        }
    }
}
