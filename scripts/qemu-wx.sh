#!/usr/bin/env bash
# .NET's W^X under qemu-user (docs/decisions.md, "2026-11-27 (issue 30, W arm64)"): runs a self-contained
# linux-arm64 program under qemu-aarch64 again and again, one process at a time, alternating
# DOTNET_EnableWriteXorExecute=1 (.NET's default) and 0, and counts the processes that fail each way.
#
#   bash scripts/qemu-wx.sh control [PAIRS] [ARGS...]  tests/QemuWx, no Cairn (default ARGS: --rounds 8)
#   bash scripts/qemu-wx.sh demo [PAIRS] [ARGS...]     Cairn.Demo (default: --shared-journal-rounds 3 --commits 1000)
#   bash scripts/qemu-wx.sh probe                       only tests/QemuWx/alias_smc.c (no .NET)
#
# Every mode first runs the probe: does qemu run code rewritten through a second, writable mapping (what
# W^X does to jitted code)? Exit 1 from it means it ran the old code. QEMU_CPU is passed through. Output:
# .scratch/qemu-wx/<mode>-<time>/ (a log per process and summary.txt). The script exits 0 whatever the counts:
# it measures, it does not judge.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-control}
pairs=${2:-10}
shift $(( $# < 2 ? $# : 2 ))
scratch="$root/.scratch/qemu-wx"
mkdir -p "$scratch"

for tool in qemu-aarch64 aarch64-linux-gnu-gcc; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross" >&2; exit 2; }
done

aarch64-linux-gnu-gcc -O2 -Wall -Wextra -static -o "$scratch/alias_smc" tests/QemuWx/alias_smc.c
set +e
qemu-aarch64 "$scratch/alias_smc"
probe=$?
set -e
echo "probe exit $probe (0: rewrites through the second mapping are run; 1: qemu ran the old code)"
[ "$mode" = probe ] && exit 0

case "$mode" in
  control)
    dotnet publish -c Release tests/QemuWx/QemuWxControl.csproj -r linux-arm64 --self-contained -o "$scratch/publish-control" >/dev/null
    program="$scratch/publish-control/QemuWxControl"
    [ $# -gt 0 ] || set -- --rounds 8 ;;
  demo)
    dotnet publish -c Release src/Demo -r linux-arm64 --self-contained -o "$scratch/publish-demo" >/dev/null
    program="$scratch/publish-demo/Cairn.Demo"
    [ $# -gt 0 ] || set -- --shared-journal-rounds 3 --commits 1000 ;;
  *) echo "unknown mode '$mode' (control, demo or probe)" >&2; exit 2 ;;
esac

out="$scratch/$mode-$(date -u +%Y%m%dT%H%M%S)"
mkdir -p "$out"
declare -A runs=([1]=0 [0]=0) failures=([1]=0 [0]=0) codes=([1]="" [0]="")
echo "$mode: $pairs pairs, args: $*, QEMU_CPU=${QEMU_CPU:-default}, logs in $out"
for ((pair = 1; pair <= pairs; pair++)); do
  # Each pair runs both settings; the order swaps every pair, so neither always runs first.
  order="1 0"; (( pair % 2 == 0 )) && order="0 1"
  for wx in $order; do
    log="$out/$(printf %03d "$pair")-wx$wx.log"
    started=$(date +%s)
    set +e
    # DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: no arm64 ICU is installed. The demo's scratch goes to its own folder.
    extra=(); [ "$mode" = demo ] && extra=(--dir "$out/demo-data")
    DOTNET_EnableWriteXorExecute=$wx DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 \
      timeout 900 qemu-aarch64 -L /usr/aarch64-linux-gnu "$program" "$@" "${extra[@]}" >"$log" 2>&1
    code=$?
    set -e
    runs[$wx]=$(( runs[$wx] + 1 ))
    if [ "$code" -ne 0 ]; then
      failures[$wx]=$(( failures[$wx] + 1 ))
      codes[$wx]+="$code "
    fi
    echo "pair $pair W^X=$wx exit $code in $(( $(date +%s) - started )) s: $(grep -m1 -E 'WRONG|Exception|qemu:|Segmentation' "$log" || tail -n1 "$log")"
    [ "$mode" = demo ] && rm -rf "$out/demo-data"
  done
done
{
  echo "$mode under qemu-aarch64 ($(qemu-aarch64 --version | head -n1)), QEMU_CPU=${QEMU_CPU:-default}, args: $*"
  echo "probe (alias_smc) exit $probe"
  echo "W^X on  (DOTNET_EnableWriteXorExecute=1): ${failures[1]} of ${runs[1]} processes failed (exit codes: ${codes[1]:-none})"
  echo "W^X off (DOTNET_EnableWriteXorExecute=0): ${failures[0]} of ${runs[0]} processes failed (exit codes: ${codes[0]:-none})"
} | tee "$out/summary.txt"
