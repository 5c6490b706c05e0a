using System.Text.RegularExpressions;
using Cairn.Diagnostics;
using Cairn.Reports;
using Cairn.Tests.Diagnostics;
using Cairn.Tests.Support;

namespace Cairn.Tests.Reports;

/// <summary>
/// The HTML page as a person sees it: opened in headless Chromium, whose DOM (after the page's script ran) must
/// hold every bar and no script error, and whose screenshot of the sample is kept for CI at
/// artifacts/screenshots/io-stats.png.
/// </summary>
public partial class IoStatsHtmlBrowserTests
{
    public const int ScreenshotWidth = 1240;
    public const int ScreenshotHeight = 1500;

    [Fact]
    public void The_sample_renders_every_bar_without_script_errors_and_is_kept_as_a_screenshot()
    {
        using var dir = new TestDirectory("io-stats-html");
        var stats = IoStatsSample.Create();
        string page = dir.File("io-stats.html");
        using (var file = File.Create(page))
            stats.WriteHtml(file, IoStatsSample.Directory);

        AssertRenders(page, dir.Path, stats.Snapshot().Length);

        string screenshot = Path.Combine(TestDirectory.RepositoryRoot, "artifacts", "screenshots", "io-stats.png");
        HeadlessChromium.Screenshot(page, screenshot, ScreenshotWidth, ScreenshotHeight, dir.Path);
        var (width, height) = HeadlessChromium.PngSize(screenshot);
        Assert.Equal((ScreenshotWidth, ScreenshotHeight), (width, height));
    }

    [Fact]
    public void A_real_environments_statistics_render_every_bar_without_script_errors()
    {
        using var dir = new TestDirectory("io-stats-html-env");
        IoStats stats;
        using (var env = StorageEnvironment.Open(new StorageOptions(dir.File("env"))))
        {
            for (int k = 0; k < 200; k++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("t").Put(Bytes.Key(k), Bytes.Value(k, 300));
                tx.Commit();
            }
            env.Checkpoint();
            stats = env.IoStats;
        }
        string page = dir.File("env.html");
        using (var file = File.Create(page))
            stats.WriteHtml(file, dir.File("env"));

        int operations = stats.Snapshot().Length;
        Assert.True(operations >= 202, $"{operations} operations: 200 journal writes, a flush and a sync at least");
        AssertRenders(page, dir.Path, operations);
    }

    private static void AssertRenders(string page, string scratch, int operations)
    {
        string dom = HeadlessChromium.DumpDom(page, scratch);
        var body = Body().Match(dom);
        Assert.True(body.Success, "no <body> in the DOM chromium dumped");
        Assert.Contains("data-errors=\"0\"", body.Value);
        Assert.Contains("data-ready=\"1\"", body.Value);
        Assert.Contains($"data-bars=\"{operations}\"", body.Value);
        Assert.Equal(operations, IoStatsHtmlTests.Bars().Matches(dom).Count);
    }

    [GeneratedRegex("<body[^>]*>")]
    private static partial Regex Body();
}
