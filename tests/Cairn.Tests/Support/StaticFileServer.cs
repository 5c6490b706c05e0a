using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Cairn.Tests.Support;

/// <summary>
/// Serves a folder over HTTP on a loopback port the system picks, for a browser to open a site whose scripts
/// fetch its own files (a page opened from file:// may not). GET only, one request per connection.
/// </summary>
public sealed class StaticFileServer : IDisposable
{
    private readonly string _root;
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly Thread _thread;

    public StaticFileServer(string root)
    {
        _root = Path.GetFullPath(root);
        _listener.Start();
        _thread = new Thread(Serve) { IsBackground = true, Name = "static-file-server" };
        _thread.Start();
    }

    /// <summary>The address of <paramref name="relativePath"/> (a path under the root, with '/').</summary>
    public Uri Address(string relativePath) => new($"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}/{relativePath}");

    public void Dispose()
    {
        _listener.Stop();
        _thread.Join();
    }

    private void Serve()
    {
        while (true)
        {
            TcpClient client;
            try { client = _listener.AcceptTcpClient(); }
            catch (SocketException) { return; }      // stopped
            catch (ObjectDisposedException) { return; }
            ThreadPool.QueueUserWorkItem(_ => Answer(client));
        }
    }

    private void Answer(TcpClient client)
    {
        using (client)
        {
            try
            {
                var stream = client.GetStream();
                string? requestLine = new StreamReader(stream, Encoding.ASCII, false, 1024, leaveOpen: true).ReadLine();
                string[] parts = requestLine?.Split(' ') ?? [];
                string? file = parts.Length >= 2 && parts[0] == "GET" ? Resolve(parts[1]) : null;
                if (file is null)
                {
                    Write(stream, "404 Not Found", "text/plain", "not found"u8.ToArray());
                    return;
                }
                Write(stream, "200 OK", ContentType(file), File.ReadAllBytes(file));
            }
            catch (IOException) { }   // the browser hung up
        }
    }

    private string? Resolve(string target)
    {
        string path = Uri.UnescapeDataString(target.Split('?', '#')[0]).TrimStart('/');
        string full = Path.GetFullPath(Path.Combine(_root, path));
        if (!full.StartsWith(_root, StringComparison.Ordinal))
            return null;
        if (Directory.Exists(full))
            full = Path.Combine(full, "index.html");
        return File.Exists(full) ? full : null;
    }

    private static void Write(NetworkStream stream, string status, string contentType, byte[] body)
    {
        var head = Encoding.ASCII.GetBytes($"HTTP/1.1 {status}\r\nContent-Type: {contentType}\r\nContent-Length: {body.Length}\r\nConnection: close\r\n\r\n");
        stream.Write(head);
        stream.Write(body);
    }

    private static string ContentType(string file) => Path.GetExtension(file).ToLowerInvariant() switch
    {
        ".html" => "text/html; charset=utf-8",
        ".js" or ".mjs" => "text/javascript; charset=utf-8",
        ".css" => "text/css; charset=utf-8",
        ".json" => "application/json; charset=utf-8",
        ".svg" => "image/svg+xml",
        ".png" => "image/png",
        ".ico" => "image/x-icon",
        ".woff" => "font/woff",
        ".woff2" => "font/woff2",
        _ => "application/octet-stream",
    };
}
