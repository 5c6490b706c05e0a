using Cairn.Pal.Testing;

namespace Cairn.Tests.Durability.CrashImages;

/// <summary>
/// Builds the directory a crash right after a given traced operation could leave behind: the files
/// as they were when recording started, plus every operation that was durable by then, plus — per
/// <see cref="CrashMode"/> — none, some sectors of, or some of the operations that were not.
/// </summary>
/// <remarks>
/// Durability rules (what fdatasync, O_DSYNC and directory fsync promise on Linux): a write or size
/// change is durable once it returned from an O_DSYNC handle or a later fdatasync of the same file
/// (the same inode, whatever it is called by then) returned; a created, deleted or renamed name is
/// durable once a later fsync of its directory returned (renames and links through the PAL sync
/// their directories themselves). Files are tracked by identity, so data synced into a file whose
/// name never became durable is lost with the name.
/// </remarks>
public sealed class CrashImageBuilder
{
    private const int SectorSize = 512;

    private readonly string _root;
    private readonly Dictionary<string, byte[]> _baseline;
    private readonly IReadOnlyList<PalTracedOperation> _operations;
    private readonly int[] _inodes;       // per operation: the file it acts on (-1: a directory operation or a directory sync)
    private readonly int[] _durableAt;    // per operation: the index of the operation that made it durable (int.MaxValue: never)
    private readonly int _baselineInodes;

    public CrashImageBuilder(string root, Dictionary<string, byte[]> baseline, IReadOnlyList<PalTracedOperation> operations)
    {
        _root = Path.GetFullPath(root);
        _baseline = baseline;
        _operations = operations;
        _inodes = new int[operations.Count];
        _durableAt = new int[operations.Count];
        _baselineInodes = baseline.Count;
        ResolveFiles();
        ResolveDurability();
    }

    /// <summary>Indices after which a crash is worth simulating: every operation that made something durable, and the last one.</summary>
    public IEnumerable<int> SyncPoints()
    {
        for (int i = 0; i < _operations.Count; i++)
        {
            var op = _operations[i];
            if (op.Durable || op.Kind is PalTracedKind.Sync or PalTracedKind.SyncDirectory || i == _operations.Count - 1)
                yield return i;
        }
    }

    /// <summary>Whether operation <paramref name="index"/> is a write of data that was durable when it returned (a journal write).</summary>
    public bool IsDurableWrite(int index) => _operations[index] is { Kind: PalTracedKind.Write, Durable: true, Data: not null };

    public int UnsyncedAt(int crashAfter)
    {
        int count = 0;
        for (int i = 0; i <= crashAfter; i++)
            if (_durableAt[i] > crashAfter)
                count++;
        return count;
    }

    /// <summary>Writes into <paramref name="target"/> (an empty directory) the files a crash right after operation <paramref name="crashAfter"/> leaves.</summary>
    public void Materialize(int crashAfter, CrashMode mode, Random random, string target)
    {
        var contents = new List<FileImage>();
        var names = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var (path, bytes) in _baseline)
        {
            names[path] = contents.Count;
            contents.Add(new FileImage(bytes));
        }
        if (mode == CrashMode.TornInFlightWrite && !IsDurableWrite(crashAfter))
            throw new ArgumentException($"operation {_operations[crashAfter]} is not a durable write", nameof(mode));
        // A crash during the cut's own write: it never returned, so it is not durable, and it may be torn.
        bool inFlight = mode == CrashMode.TornInFlightWrite;
        int tearUnit = inFlight && random.Next(2) == 0 ? 4096 : SectorSize;
        for (int i = 0; i <= crashAfter; i++)
        {
            var op = _operations[i];
            bool durable = _durableAt[i] <= crashAfter && !(inFlight && i == crashAfter);
            if (!durable && mode == CrashMode.DropUnsynced)
                continue;
            // An unsynced operation survives a crash or not; a torn write decides sector by sector instead.
            bool survives = durable || random.Next(2) == 0;
            while (contents.Count <= _inodes[i])
                contents.Add(new FileImage([]));
            switch (op.Kind)
            {
                case PalTracedKind.Write when durable || mode == CrashMode.RandomSubset:
                    if (survives)
                        contents[_inodes[i]].Write(op.Offset, op.Data, 0, op.Size);
                    break;
                case PalTracedKind.Write:
                    int unit = i == crashAfter ? tearUnit : SectorSize;
                    for (long at = 0; at < op.Size; at += unit)
                        if (random.Next(2) == 0)
                            contents[_inodes[i]].Write(op.Offset + at, op.Data, at, Math.Min(unit, op.Size - at));
                    break;
                case PalTracedKind.Extend when survives:
                    contents[_inodes[i]].Resize(Math.Max(op.Size, contents[_inodes[i]].Length));
                    break;
                case PalTracedKind.Truncate when survives:
                    contents[_inodes[i]].Resize(op.Size);
                    break;
                case PalTracedKind.Create when survives:
                    names[Relative(op.Path)] = _inodes[i];
                    break;
                case PalTracedKind.Delete when survives:
                    names.Remove(Relative(op.Path));
                    break;
                case PalTracedKind.Rename when survives:
                    if (names.Remove(Relative(op.Path), out int moved))
                        names[Relative(op.OtherPath!)] = moved;
                    break;
                case PalTracedKind.Link when survives:
                    if (names.TryGetValue(Relative(op.Path), out int linked))
                        names[Relative(op.OtherPath!)] = linked;
                    break;
            }
        }
        foreach (var (name, inode) in names)
        {
            string path = Path.Combine(target, name);
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            using var file = File.Create(path);
            file.Write(contents[inode].Bytes);
        }
    }

    /// <summary>A file's bytes as the crash leaves them.</summary>
    private sealed class FileImage(byte[] initial)
    {
        private byte[] _bytes = (byte[])initial.Clone();

        public long Length { get; private set; } = initial.Length;

        public ReadOnlySpan<byte> Bytes => _bytes.AsSpan(0, (int)Length);

        public void Write(long offset, byte[]? data, long from, long length)
        {
            if (Length < offset + length)
                Resize(offset + length);
            var destination = _bytes.AsSpan((int)offset, (int)length);
            if (data is null)
                destination.Clear();
            else
                data.AsSpan((int)from, (int)length).CopyTo(destination);
        }

        public void Resize(long size)
        {
            if (size > _bytes.Length)
                Array.Resize(ref _bytes, (int)Math.Max(size, _bytes.Length * 2L));
            if (size > Length)
                _bytes.AsSpan((int)Length, (int)(size - Length)).Clear();
            Length = size;
        }
    }

    /// <summary>Which file each operation acts on, following creates, renames, links and deletes as they happened.</summary>
    private void ResolveFiles()
    {
        var names = new Dictionary<string, int>(StringComparer.Ordinal);
        int next = 0;
        foreach (var path in _baseline.Keys)
            names[path] = next++;
        for (int i = 0; i < _operations.Count; i++)
        {
            var op = _operations[i];
            string name = Relative(op.Path);
            switch (op.Kind)
            {
                case PalTracedKind.Create:
                    names[name] = next++;
                    _inodes[i] = names[name];
                    break;
                case PalTracedKind.Rename:
                    _inodes[i] = names.Remove(name, out int moved) ? moved : -1;
                    if (_inodes[i] >= 0)
                        names[Relative(op.OtherPath!)] = moved;
                    break;
                case PalTracedKind.Link:
                    _inodes[i] = names.GetValueOrDefault(name, -1);
                    if (_inodes[i] >= 0)
                        names[Relative(op.OtherPath!)] = _inodes[i];
                    break;
                case PalTracedKind.Delete:
                    _inodes[i] = names.GetValueOrDefault(name, -1);
                    names.Remove(name);
                    break;
                case PalTracedKind.SyncDirectory:
                    _inodes[i] = -1;
                    break;
                default:
                    _inodes[i] = names.TryGetValue(name, out int inode)
                        ? inode
                        : throw new InvalidOperationException($"operation {op} on a file the trace never created (start recording before the environment opens its files)");
                    break;
            }
        }
    }

    /// <summary>For every operation, the first later one that makes it durable (or itself, if it was durable when it returned).</summary>
    private void ResolveDurability()
    {
        var nextFileSync = new Dictionary<int, int>();
        var nextDirectorySync = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = _operations.Count - 1; i >= 0; i--)
        {
            var op = _operations[i];
            if (op.Durable)
                _durableAt[i] = i;
            else if (op.Kind is PalTracedKind.Create or PalTracedKind.Delete or PalTracedKind.Rename or PalTracedKind.Link)
                _durableAt[i] = nextDirectorySync.GetValueOrDefault(Path.GetDirectoryName(Relative(op.Path))!, int.MaxValue);
            else if (op.Kind is PalTracedKind.Sync or PalTracedKind.SyncDirectory)
                _durableAt[i] = i;
            else
                _durableAt[i] = nextFileSync.GetValueOrDefault(_inodes[i], int.MaxValue);

            if (op.Kind == PalTracedKind.Sync)
                nextFileSync[_inodes[i]] = i;
            else if (op.Kind == PalTracedKind.SyncDirectory)
                nextDirectorySync[Relative(op.Path)] = i;
        }
    }

    private string Relative(string path)
    {
        string full = Path.GetFullPath(path);
        return full.Length == _root.Length ? "" : Path.GetRelativePath(_root, full);
    }
}
