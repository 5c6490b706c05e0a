#!/usr/bin/env bash
# The crash campaigns at full size (not CI, which runs short versions of the same tests):
#  - process kills: stress campaigns (src/Stress, Cairn.Stress): a child writer is SIGKILLed at random
#    moments and at named points inside the engine, flushing often or never; each checked cycle reopens
#    the environment, compares it with the expected state, commits more, checkpoints, verifies and closes
#    cleanly. Single writer, merger callers, large values.
#  - crash images: recorded I/O of a small workload cut at every sync point, unsynced writes dropped,
#    torn at 512-byte sectors or kept at random; every image must open to every acknowledged commit.
# Sizes (environment variables; the defaults give 10,000 kills and about 100,000 crash images):
#   CAIRN_CRASH_CYCLES (5000), CAIRN_CRASH_MERGER_CYCLES (3000), CAIRN_CRASH_LARGE_CYCLES (2000),
#   CAIRN_CRASH_IMAGE_ROUNDS (80, about 1,260 images each; CAIRN_CRASH_IMAGE_FIRST_ROUND to go on past
#   rounds already run), CAIRN_CRASH_SEED (random; printed).
# Both campaigns run at once (about 90 minutes on 2 cores). Scratch data goes to .scratch/ on the real
# disk; the summaries land in artifacts/crash-campaign/. Exit status is non-zero on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh >/dev/null
dotnet build -c Release tests/Cairn.Tests >/dev/null

export CAIRN_CRASH_CYCLES=${CAIRN_CRASH_CYCLES:-5000}
export CAIRN_CRASH_MERGER_CYCLES=${CAIRN_CRASH_MERGER_CYCLES:-3000}
export CAIRN_CRASH_LARGE_CYCLES=${CAIRN_CRASH_LARGE_CYCLES:-2000}
export CAIRN_CRASH_IMAGE_ROUNDS=${CAIRN_CRASH_IMAGE_ROUNDS:-80}

out=artifacts/crash-campaign
mkdir -p "$out"
echo "kills: $CAIRN_CRASH_CYCLES single writer, $CAIRN_CRASH_MERGER_CYCLES merger, $CAIRN_CRASH_LARGE_CYCLES large values;" \
     "crash images: $CAIRN_CRASH_IMAGE_ROUNDS rounds; logs in $out/"

run() {
  local name=$1 filter=$2
  # Long campaigns must not be cut by the test host's hang detection: none is set, and the test itself has timeouts per step.
  dotnet test tests/Cairn.Tests -c Release --no-build --filter "$filter" \
    --logger "console;verbosity=detailed" >"$out/$name.log" 2>&1
}

status=0
run kills "FullyQualifiedName~ProcessCrashTests.Every" & kills=$!
run images "FullyQualifiedName~CrashImageTests" & images=$!
wait $kills || status=1
wait $images || status=1

echo "== process kills"
grep -E "stress campaign|kills:|acknowledged:|lost [0-9]|recovery \(|failure:|Passed |Failed " "$out/kills.log" | sed 's/^ *//' || true
echo "== crash images"
grep -E "round\(s\)|traced operations|Passed |Failed " "$out/images.log" | sed 's/^ *//' || true
[ $status -eq 0 ] && echo "campaign: no violation" || echo "campaign: FAILED (see $out/)"
exit $status
