namespace Cairn.Verification;

/// <summary>Who uses each page, so a page claimed twice (or never) is found.</summary>
internal sealed class PageOwnership(long totalPages)
{
    private readonly string?[] _owners = new string?[totalPages];

    public List<string> Problems { get; } = [];

    public long Claimed { get; private set; }

    public void Claim(long pageNumber, int count, string owner)
    {
        for (long page = pageNumber; page < pageNumber + count; page++)
        {
            if (page < 0 || page >= _owners.Length)
            {
                Problems.Add($"{owner} uses page {page}, outside the {_owners.Length} pages in use");
                continue;
            }
            if (_owners[page] is { } previous)
            {
                Problems.Add($"page {page} is used by both {previous} and {owner}");
                continue;
            }
            _owners[page] = owner;
            Claimed++;
        }
    }

    public bool IsClaimed(long pageNumber) => _owners[pageNumber] is not null;
}
