#!/usr/bin/env bash
# Builds the API reference and guide site (docfx, docs/site) into artifacts/docs-site/site.
#
# The API reference covers every library under src/*/ that generates XML documentation (today Cairn,
# Cairn.Pal and Cairn.Extensions.Hosting): a new documented library is picked up without editing this
# script or docs/site/docfx.json. docfx reads the built assemblies and their XML files, not the sources,
# so the site documents exactly what ships. Any docfx warning (a broken link, an unresolved cref, a toc
# entry without its page) fails the build.
#
#   bash scripts/docs.sh                  # builds the libraries (Release), then the site
#   bash scripts/docs.sh --no-build       # the libraries are already built (the test that checks the site)
#   bash scripts/docs.sh -c Debug         # another configuration's build
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=Release
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    -c|--configuration) configuration="$2"; shift ;;
    *) echo "usage: scripts/docs.sh [--no-build] [-c CONFIGURATION]" >&2; exit 2 ;;
  esac
  shift
done

out=artifacts/docs-site
rm -rf "$out/obj" "$out/site"
mkdir -p "$out/obj/assemblies" "$out/obj/references"

dotnet tool restore >/dev/null

documented=()
for project in src/*/*.csproj; do
  # A documented library: one whose build writes XML documentation (an evaluation only, nothing runs).
  kind=$(dotnet msbuild "$project" -p:Configuration="$configuration" -getProperty:OutputType -getProperty:GenerateDocumentationFile |
         jq -r '.Properties | "\(.OutputType) \(.GenerateDocumentationFile)"')
  [ "$kind" = "Library true" ] || continue
  if [ "$build" -eq 1 ]; then
    dotnet build "$project" -c "$configuration" --nologo -v quiet >/dev/null
  fi
  # What it builds and what it references (for docfx to resolve base types and parameters);
  # BuildProjectReferences=false: nothing is built here.
  dotnet msbuild "$project" -p:Configuration="$configuration" -p:BuildProjectReferences=false \
    -p:ResolveAssemblyReferencesStateFile="$(pwd)/$out/obj/rar.cache" \
    -t:ResolveAssemblyReferences -getProperty:TargetPath -getItem:ReferencePath > "$out/obj/project.json"
  assembly=$(jq -r '.Properties.TargetPath' "$out/obj/project.json")
  if [ ! -f "$assembly" ] || [ ! -f "${assembly%.dll}.xml" ]; then
    echo "docs.sh: $project is not built ($assembly or its XML documentation is missing): run without --no-build, or dotnet build -c $configuration" >&2
    exit 1
  fi
  cp "$assembly" "${assembly%.dll}.xml" "$out/obj/assemblies/"
  # The framework's reference assemblies stay out: docfx brings the runtime's own, and two definitions of
  # System.Object leave none.
  jq -r '.Items.ReferencePath[] | select(.FrameworkReferenceName == null or .FrameworkReferenceName == "") | .FullPath' \
    "$out/obj/project.json" | while read -r reference; do
    cp -n "$reference" "$out/obj/references/"
  done
  documented+=("$(basename "$assembly" .dll)")
done
# A documented assembly is an input, not a reference (the copy from a referencing project's list goes).
for name in "${documented[@]}"; do rm -f "$out/obj/references/$name.dll"; done
printf '%s\n' "${documented[@]}" > "$out/obj/assemblies.txt"
echo "documenting: ${documented[*]}"

# The pages are built from a copy (artifacts/docs-site/obj/site-src: docfx names files there in its messages)
# that adds the options table, docs/options.md (the one table of every option), as a page of the guide. Until
# that file exists the page is left out of the guide's table of contents, loudly.
mkdir -p "$out/obj/site-src"
cp -r docs/site/index.md docs/site/toc.yml docs/site/guide "$out/obj/site-src/"
if [ -f docs/options.md ]; then
  cp docs/options.md "$out/obj/site-src/guide/options.md"
else
  echo "docs.sh: docs/options.md is missing: the site is built without its options page" >&2
  sed -i '/^- name: Options$/,/^  href: options.md$/d' "$out/obj/site-src/guide/toc.yml"
fi

dotnet docfx metadata docs/site/docfx.json --warningsAsErrors
dotnet docfx build docs/site/docfx.json --warningsAsErrors
cp "$out/obj/assemblies.txt" "$out/site/assemblies.txt"
echo "site: $out/site/index.html"
