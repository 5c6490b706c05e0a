using System.Runtime.InteropServices;
using Cairn.Paging;
using Cairn.Trees;
using Cairn.Tests.Support;
using FsCheck;
using FsCheck.Fluent;

namespace Cairn.Tests.Trees;

/// <summary>
/// The leaf and branch searches (with their probe prefetching, <see cref="ProbePrefetch"/>) against a sorted-list
/// model: random pages of keys that share prefixes of every length around the 8-byte words the comparison reads,
/// keys shorter than a word, keys that are prefixes of each other, bytes on both sides of 0x80, nodes laid out in
/// random insertion order as a random fill leaves them, and probes that hit, fall between, or lie outside.
/// </summary>
public unsafe class PageSearchModelTests
{
    private static readonly byte[] Alphabet = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF];

    [Fact]
    public void Leaf_and_branch_searches_match_the_sorted_model()
    {
        Check.One(
            Config.QuickThrowOnFailure.WithMaxTest(400).WithQuietOnSuccess(true),
            Prop.ForAll(Arb.From(SearchCase.Cases), Run));
    }

    private static void Run(SearchCase searchCase)
    {
        var comparer = Comparer<byte[]>.Create((a, b) => a.AsSpan().SequenceCompareTo(b));
        byte* leaf = (byte*)NativeMemory.AlignedAlloc(StorageConstants.PageSize, StorageConstants.PageSize);
        byte* branch = (byte*)NativeMemory.AlignedAlloc(StorageConstants.PageSize, StorageConstants.PageSize);
        try
        {
            var model = new List<byte[]>();
            TreePage.Initialize(LoosePage.Of(leaf), PageFlags.Leaf);
            TreePage.Initialize(LoosePage.Of(branch), PageFlags.Branch);
            TreePage.WriteBranchNode(TreePage.AppendSlot(LoosePage.Of(branch), BranchNodeHeader.Size), default, 0); // minus infinity
            foreach (byte[] key in searchCase.Stored)
            {
                int at = model.BinarySearch(key, comparer);
                if (at >= 0 || !Fits(leaf, LeafNodeHeader.Size + key.Length) || !Fits(branch, BranchNodeHeader.Size + key.Length))
                    continue;
                at = ~at;
                model.Insert(at, key);
                TreePage.WriteLeafNode(TreePage.InsertSlot(LoosePage.Of(leaf), at, LeafNodeHeader.Size + key.Length), key, [], 0, false);
                TreePage.WriteBranchNode(TreePage.InsertSlot(LoosePage.Of(branch), at + 1, BranchNodeHeader.Size + key.Length), key, at + 1);
            }
            foreach (byte[] probe in Probes(searchCase, model))
            {
                int lowerBound = model.BinarySearch(probe, comparer);
                bool present = lowerBound >= 0;
                if (!present)
                    lowerBound = ~lowerBound;
                int leafIndex = TreePage.SearchLeaf(leaf, probe, out bool found);
                Assert.True(leafIndex == lowerBound && found == present,
                    $"leaf search for {Convert.ToHexString(probe)}: {leafIndex}/{found}, model {lowerBound}/{present}");
                int child = TreePage.SearchBranch(branch, probe);
                int expectedChild = present ? lowerBound + 1 : lowerBound; // the last separator <= probe (0: none)
                Assert.True(child == expectedChild,
                    $"branch search for {Convert.ToHexString(probe)}: child {child}, model {expectedChild}");
            }
        }
        finally
        {
            NativeMemory.AlignedFree(leaf);
            NativeMemory.AlignedFree(branch);
        }
    }

    private static bool Fits(byte* page, int nodeSize) => TreePage.ContiguousFree(page) >= nodeSize + sizeof(ushort);

    /// <summary>Every stored key, its neighbours in byte order (one byte more, the last byte one less), and the random probes.</summary>
    private static IEnumerable<byte[]> Probes(SearchCase searchCase, List<byte[]> model)
    {
        foreach (byte[] key in model)
        {
            yield return key;
            yield return [.. key, 0x00];
            if (key[^1] != 0)
                yield return [.. key.AsSpan(0, key.Length - 1), (byte)(key[^1] - 1)];
            if (key.Length > 1)
                yield return key[..^1];
        }
        foreach (byte[] probe in searchCase.Probes)
            yield return probe;
    }

    public sealed record SearchCase(byte[][] Stored, byte[][] Probes)
    {
        // Prefix lengths around the 8-byte words: shorter than one, exactly one, one past, two, and none.
        private static readonly int[] PrefixLengths = [0, 1, 3, 7, 8, 9, 15, 16, 17, 24];

        public static readonly Gen<SearchCase> Cases =
            from shared in Gen.ArrayOf(Gen.Elements(Alphabet), 32)
            from count in Gen.Choose(0, 300)
            from stored in Gen.ArrayOf(Key(shared), count)
            from probes in Gen.ArrayOf(Key(shared), 40)
            select new SearchCase(stored, probes);

        private static Gen<byte[]> Key(byte[] shared) =>
            from prefix in Gen.Elements(PrefixLengths)
            from tailLength in Gen.Frequency(
                (3, Gen.Choose(prefix == 0 ? 1 : 0, 7)),
                (2, Gen.Choose(8, 10)),
                (1, Gen.Choose(11, 40)))
            from tail in Gen.ArrayOf(Gen.Elements(Alphabet), tailLength)
            select (byte[])[.. shared.AsSpan(0, prefix), .. tail];

        public override string ToString() =>
            $"stored [{string.Join(", ", Stored.Select(Convert.ToHexString))}], probes [{string.Join(", ", Probes.Select(Convert.ToHexString))}]";
    }
}
