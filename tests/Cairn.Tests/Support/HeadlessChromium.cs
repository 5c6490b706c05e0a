using System.Buffers.Binary;
using System.Diagnostics;

namespace Cairn.Tests.Support;

/// <summary>
/// Debian's chromium, headless, as a person's browser would show a page: its DOM after the page's scripts ran,
/// and a screenshot. scripts/setup.sh installs it; a machine without it fails the test that needs it, since a
/// skipped look is no look at all.
/// </summary>
public static class HeadlessChromium
{
    private const string DefaultBinary = "/usr/bin/chromium";
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(2);

    /// <summary>The page's DOM, serialized after its load event.</summary>
    public static string DumpDom(string htmlPath, string scratchDirectory)
        => Run(scratchDirectory, "--dump-dom", new Uri(Path.GetFullPath(htmlPath)).AbsoluteUri);

    /// <summary>
    /// The DOM of a served page once its scripts had <paramref name="settle"/> of virtual time (the browser's
    /// own clock, which runs ahead when nothing is pending and waits for network loads), so what the page
    /// fetches and builds after its load event is in it.
    /// </summary>
    public static string DumpDom(Uri address, string scratchDirectory, TimeSpan settle)
        => Run(scratchDirectory, $"--virtual-time-budget={(int)settle.TotalMilliseconds}", "--dump-dom", address.AbsoluteUri);

    /// <summary>A PNG of a served page, taken as <see cref="DumpDom(Uri, string, TimeSpan)"/> reads it.</summary>
    public static void Screenshot(Uri address, string pngPath, int width, int height, string scratchDirectory, TimeSpan settle)
        => Capture(address.AbsoluteUri, pngPath, width, height, scratchDirectory, $"--virtual-time-budget={(int)settle.TotalMilliseconds}");

    /// <summary>Writes a PNG of the first <paramref name="width"/> × <paramref name="height"/> pixels of the page.</summary>
    public static void Screenshot(string htmlPath, string pngPath, int width, int height, string scratchDirectory)
        => Capture(new Uri(Path.GetFullPath(htmlPath)).AbsoluteUri, pngPath, width, height, scratchDirectory);

    private static void Capture(string address, string pngPath, int width, int height, string scratchDirectory, params string[] options)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(pngPath))!);
        File.Delete(pngPath);
        Run(scratchDirectory, [.. options, $"--window-size={width},{height}", "--hide-scrollbars", $"--screenshot={Path.GetFullPath(pngPath)}", address]);
        Assert.True(File.Exists(pngPath), $"chromium wrote no screenshot to {pngPath}");
    }

    /// <summary>The width and height a PNG file's header gives.</summary>
    public static (int Width, int Height) PngSize(string path)
    {
        var bytes = File.ReadAllBytes(path);
        Assert.True(bytes.Length > 24 && bytes.AsSpan(0, 8).SequenceEqual(new byte[] { 0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A }), $"{path} is not a PNG");
        return (BinaryPrimitives.ReadInt32BigEndian(bytes.AsSpan(16)), BinaryPrimitives.ReadInt32BigEndian(bytes.AsSpan(20)));
    }

    private static string Binary()
    {
        string binary = System.Environment.GetEnvironmentVariable("CAIRN_CHROMIUM") is { Length: > 0 } custom ? custom : DefaultBinary;
        Assert.True(File.Exists(binary),
            $"headless Chromium is needed to look at the page and is not at {binary}: run scripts/setup.sh (it installs Debian's 'chromium'), " +
            "or point CAIRN_CHROMIUM at a chromium binary");
        return binary;
    }

    private static string Run(string scratchDirectory, params string[] arguments)
    {
        var start = new ProcessStartInfo(Binary());
        // Root needs --no-sandbox; a profile of its own keeps runs apart and leaves the user's alone.
        foreach (var argument in new[] { "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                                         "--disable-extensions", "--disable-background-networking", "--mute-audio",
                                         $"--user-data-dir={Path.Combine(scratchDirectory, "chromium-profile")}" }.Concat(arguments))
            start.ArgumentList.Add(argument);
        var outcome = ExternalProcess.Run(start, Timeout);
        Assert.True(outcome.ExitCode == 0, $"chromium exited with {outcome.ExitCode}: {outcome.Error}");
        return outcome.Output;
    }
}
