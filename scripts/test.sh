#!/usr/bin/env bash
# Installs what is missing, then runs every test: the native tests (ctest, once as built, which also
# builds them for Windows and linux-arm64 and runs them under wine and qemu-user, and once under
# AddressSanitizer+UBSan; both include the mingw-w64 compile of the Windows layer) and the xunit
# tests. Scratch data goes to .scratch/ (ignored by git, on the real disk).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/setup.sh

results="$root/artifacts/test-results"
rm -rf "$results"
mkdir -p "$results"

echo "== native tests (release)"
cmake -S . -B artifacts/native/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build artifacts/native/release -j 2
ctest --test-dir artifacts/native/release --output-on-failure -j 2 --output-junit "$results/native-release.xml"

echo "== native tests (AddressSanitizer + UBSan)"
cmake -S . -B artifacts/native/asan -DCMAKE_BUILD_TYPE=Debug -DCAIRN_SANITIZE=ON >/dev/null
cmake --build artifacts/native/asan -j 2
ctest --test-dir artifacts/native/asan --output-on-failure -j 2 --output-junit "$results/native-asan.xml"

echo "== benchmark stores self-check (every store: fill, reopen, read, scan)"
dotnet run -c Release --project bench/Cairn.Bench -- --self-check

echo "== managed tests"
# The real disk-full test mounts a small ext4 image through a loop device. Where this machine can do
# that (root, loop devices), a failed mount is a failed test rather than a reported omission.
if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ]; then
  export CAIRN_TEST_REQUIRE_MOUNTS=1
fi
dotnet test Storage.sln -c Release --logger "trx;LogFilePrefix=managed" --results-directory "$results"

# One closing line that counts everything, in the form CI reads ("N passed, N failed").
attribute() { grep -o "$1=\"[0-9]*\"" "$2" | head -n1 | grep -o '[0-9]*'; }
passed=0
failed=0
for junit in "$results"/native-*.xml; do
  total=$(attribute tests "$junit"); failures=$(attribute failures "$junit"); skipped=$(attribute skipped "$junit")
  passed=$((passed + total - failures - ${skipped:-0}))
  failed=$((failed + failures))
done
for trx in "$results"/*.trx; do
  counters=$(grep -o '<Counters [^>]*>' "$trx")
  passed=$((passed + $(attribute passed <(echo "$counters"))))
  failed=$((failed + $(attribute failed <(echo "$counters")) + $(attribute error <(echo "$counters"))))
done
echo "summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
