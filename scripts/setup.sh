#!/usr/bin/env bash
# Installs what building and testing Cairn needs on a Debian-family machine that has the .NET SDK:
# CMake and gcc for the native layer, liburing (linked statically), the mingw-w64 cross compiler
# that checks the Windows code, e2fsprogs for the disk-full tests on a loop-mounted ext4 image,
# libxxhash0 as the reference the checksum tests compare against (XXH3, and XXH64 of format version 1),
# liblmdb0 as the benchmarks' LMDB peer (under LightningDB, whose own build needs glibc 2.38); chromium
# (headless) and a font to render the I/O statistics page in the test that looks at it as a person would;
# and the cross toolchains and emulators that run the native tests for other platforms: the aarch64
# cross gcc with qemu-user (linux-arm64), wine (Windows, with the mingw-w64 compiler above); jq for
# scripts/docs.sh, which reads MSBuild's JSON answers. The .NET tools (docfx) come from
# .config/dotnet-tools.json through 'dotnet tool restore', which scripts/docs.sh runs.
set -euo pipefail

packages=(cmake make gcc libc6-dev liburing-dev gcc-mingw-w64-x86-64 e2fsprogs mount binutils libxxhash0 liblmdb0
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user wine wine64 chromium fonts-dejavu-core jq)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v dotnet >/dev/null 2>&1; then
  echo "setup: the .NET 10 SDK (dotnet) is required and is not on PATH" >&2
  exit 1
fi
echo "setup: ready (dotnet $(dotnet --version), $(cmake --version | head -n1), liburing $(dpkg-query -W -f='${Version}' liburing-dev), lmdb $(dpkg-query -W -f='${Version}' liblmdb0))"
