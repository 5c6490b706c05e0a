namespace Cairn.Cluster.Bench;

/// <summary>The bench's options (Program.cs lists them), each with its default in one place.</summary>
internal sealed record BenchArguments(int[] Callers, int Rounds, int Writes, int Kills, int Background, int LowerElection, int UpperElection)
{
    public static BenchArguments Parse(string[] args)
    {
        var parsed = new BenchArguments([16, 64], Rounds: 4, Writes: 100, Kills: 20, Background: 2, LowerElection: 150, UpperElection: 300);
        for (var i = 0; i < args.Length; i++)
        {
            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value.");
            parsed = args[i] switch
            {
                "--callers" => parsed with { Callers = value.Split(',').Select(int.Parse).ToArray() },
                "--rounds" => parsed with { Rounds = int.Parse(value) },
                "--writes" => parsed with { Writes = int.Parse(value) },
                "--kills" => parsed with { Kills = int.Parse(value) },
                "--background" => parsed with { Background = int.Parse(value) },
                "--election" => parsed with { LowerElection = int.Parse(value.Split('-')[0]), UpperElection = int.Parse(value.Split('-')[1]) },
                _ => throw new ArgumentException($"Unknown option {args[i]}: --callers, --rounds, --writes, --kills, --background, --election."),
            };
            i++;
        }

        return parsed;
    }
}
