#!/usr/bin/env bash
# Cairn's XXH3 against System.IO.Hashing beyond this x64 machine's own kernels (tests/HashCheck):
#   - here, as is, with AVX2 off (the SSE2 Vector128 kernel as the default) and with hardware intrinsics off
#     (the scalar kernel as the default);
#   - linux-arm64 under qemu-aarch64 (the AdvSimd Vector128 kernel);
#   - win-x64 under wine.
# Output and the logs: .scratch/hash-cross/. Exit 1 if any run fails or disagrees.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out="$root/.scratch/hash-cross"
mkdir -p "$out"
status=0
run() { # NAME COMMAND...
  local name=$1; shift
  if "$@" >"$out/$name.log" 2>&1; then echo "$name: $(tail -n2 "$out/$name.log" | tr '\n' ' ')"
  else echo "$name: FAILED (exit $?): $(tail -n3 "$out/$name.log" | tr '\n' ' ')"; status=1; fi
}

dotnet build -c Release tests/HashCheck -o "$out/x64" >/dev/null
run x64 dotnet "$out/x64/HashCheck.dll"
run x64-no-avx2 env DOTNET_EnableAVX2=0 dotnet "$out/x64/HashCheck.dll"
run x64-no-intrinsics env DOTNET_EnableHWIntrinsic=0 dotnet "$out/x64/HashCheck.dll"

for tool in qemu-aarch64 wine; do command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }; done

dotnet publish -c Release tests/HashCheck -r linux-arm64 --self-contained -o "$out/linux-arm64" >/dev/null
# No arm64 ICU (HashCheck is invariant anyway); W^X off: qemu-user runs stale code after W^X rewrites (docs/decisions.md, issue 30).
run linux-arm64-qemu env DOTNET_EnableWriteXorExecute=0 qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/linux-arm64/HashCheck"

dotnet publish -c Release tests/HashCheck -r win-x64 --self-contained -o "$out/win-x64" >/dev/null
# mscoree stays enabled: wine's loader needs it to map IL-only assemblies (tests/Cairn.PackageTests/CrossRunTests.cs).
export WINEPREFIX="$out/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mshtml="
run win-x64-wine wine "$out/win-x64/HashCheck.exe"
wineserver -k || true
exit $status
