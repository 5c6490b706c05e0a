#!/usr/bin/env bash
# Issue 29's table ("core speed, round two"), every row from the project's own bench, in one command. Not CI: the full
# run took 6 minutes on a quiet machine (2026-11-29; the 10 M-key fill is 3 of them) and means something only
# there (check `uptime`; the load is logged beside each row). Each row is one bench mode whose peers run in the same
# process, alternating round by round, so every figure is a ratio against a peer measured in the same minutes
# (docs/benchmarks.md explains each mode).
#
#   bash scripts/core-speed-table.sh            # full sizes
#   bash scripts/core-speed-table.sh --quick    # small sizes: checks that every row runs (minutes), figures mean little
#   CAIRN_TABLE_ROWS="fills reads" bash scripts/core-speed-table.sh   # only the rows named
#
# Rows: fills (1 M keys, 1,000 per transaction, lazy: LMDB MDB_NOSYNC and RocksDB sync=false, sequential and random),
# reads (point reads 1 and 2 threads and scans, interleaved; the one-shot scan in fresh processes), commits (durable
# commits: 1 writer against LMDB and SQLite, 16 and 64 threads each committing its own transaction, and the merger's
# async and blocking callers, against RocksDB), large (64 KiB values, 100 per durable transaction, against LMDB),
# bigfill (10 M random keys, 10,000 per lazy transaction: rate, size on disk and device bytes against LMDB and
# RocksDB), recovery (cold open of a 256 MiB journal: the image is built once under .scratch/).
# Logs land in artifacts/core-speed/<UTC time>/, one per row; the summary tables are at the end of each log.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
rows=${CAIRN_TABLE_ROWS:-"fills reads commits large bigfill recovery"}

bash scripts/setup.sh >/dev/null
bin=.scratch/bench-table
dotnet build bench/Cairn.Bench -c Release -o "$bin" >/dev/null
export CAIRN_BENCH_DIR=${CAIRN_BENCH_DIR:-$PWD/.scratch/benchdir}
mkdir -p "$CAIRN_BENCH_DIR"
out=artifacts/core-speed/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
echo "commit $(git rev-parse --short HEAD); logs in $out/; quick=$quick"

if ((quick)); then
  keys=100000 bigkeys=200000 rounds=2 mib=32 commits=200
else
  keys=1000000 bigkeys=10000000 rounds=3 mib=256 commits=2048
fi

row() {
  local name=$1; shift
  echo "== $name: $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/$name.log"
  echo "   dotnet $bin/Cairn.Bench.dll $*" | tee -a "$out/$name.log"
  dotnet "$bin/Cairn.Bench.dll" "$@" >>"$out/$name.log" 2>&1
  echo "   done $(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/$name.log"
}

for r in $rows; do
  case $r in
    fills)
      row fills --fill-interleaved --keys "$keys" --batch 1000 --modes lazy --orders sequential,random \
        --stores lmdb,cairn,rocksdb --rounds "$rounds" ;;
    reads)
      row reads --reads-interleaved --stores lmdb,cairn --rounds $((rounds * 2))
      row reads-oneshot --reads-oneshot --rounds "$rounds" ;;
    commits)
      row commits --concurrent-interleaved --callers 1,16,64 --rounds "$rounds" --commits "$commits" \
        --stores lmdb,sqlite,rocksdb,cairn,cairn-merger,cairn-merger-async --baselines rocksdb,lmdb,sqlite ;;
    large)
      row large --large-values --values 65536 --mib "$mib" --rounds "$rounds" ;;
    bigfill)
      row bigfill --fill-interleaved --keys "$bigkeys" --batch 10000 --modes lazy --orders random \
        --stores lmdb,cairn,rocksdb --rounds 1 ;;
    recovery)
      image=.scratch/img/table-j256
      if [[ ! -d $image ]]; then
        row recovery-image --recovery-survey --save-image "$image" --only cold --fresh-process --repeat 1
      fi
      row recovery --recovery-survey --image "$image" --only cold --fresh-process --repeat 3 ;;
    *) echo "unknown row '$r'; rows: fills reads commits large bigfill recovery" >&2; exit 2 ;;
  esac
done
echo "all rows done; logs in $out/"
