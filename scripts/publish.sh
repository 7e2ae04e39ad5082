#!/usr/bin/env bash
# Publishes one part of a release that `npm run release` wrote, where its users get it. The release workflow
# (.github/workflows/release.yml) runs it for a pushed tag; the rehearsal (test/hosts/rehearsal.test.ts)
# runs the same code against local stand-ins of each endpoint, so what the rehearsal proves is what a tag
# publishes. Every part checks what it is handed before anything leaves the machine, and a re-run skips
# what an earlier run published (a published version is never replaced).
#
#   bash scripts/publish.sh <part> --release <dir> --version <version> [--prerelease true|false] [endpoint]
#
#   plugin   the plugin archives and checksums.txt: to the GitHub release of the tag v<version> (gh, with
#            GH_TOKEN and GITHUB_REPOSITORY), or with --dir <folder> into a folder that a server offers as
#            the pluginDownloadURL
#   npm      both npm tarballs: to the npm registry with provenance, or with --registry <url> to that
#            registry (no provenance: it needs a CI identity); the token comes from npm's config
#            (NODE_AUTH_TOKEN through setup-node's .npmrc), never from the command line
#   pypi     --collect <dir>: the wheel and the sdist into <dir>, which PyPI's trusted publishing uploads;
#            with --simple-index, <dir> is also laid out as a PEP 503 simple index (<dir>/simple/)
#   go       the Go module, committed at sdk/go/remotebrowser on top of the checkout's commit and tagged
#            sdk/go/remotebrowser/v<version>, pushed to --remote (default origin); GITHUB_REPOSITORY names
#            the repository the module path must be of. Run in a checkout of the release's commit.
set -euo pipefail

die() { echo "::error::$*"; exit 1; }
usage() { sed -n '8,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
part=$1
shift
release="" version="" prerelease=false dir="" registry="" collect="" simple_index=false remote=origin
while [ $# -gt 0 ]; do
  case "$1" in
    --release) release=${2:?--release needs a folder}; shift 2 ;;
    --version) version=${2:?--version needs a value}; shift 2 ;;
    --prerelease) prerelease=${2:?--prerelease needs true or false}; shift 2 ;;
    --dir) dir=${2:?--dir needs a folder}; shift 2 ;;
    --registry) registry=${2:?--registry needs an address}; shift 2 ;;
    --collect) collect=${2:?--collect needs a folder}; shift 2 ;;
    --simple-index) simple_index=true; shift ;;
    --remote) remote=${2:?--remote needs a git remote}; shift 2 ;;
    *) echo "publish: unknown argument $1" >&2; usage ;;
  esac
done
[ -n "$release" ] && [ -n "$version" ] || usage
[ -d "$release" ] || die "no release folder $release: run npm run release first"
tag=v$version

publish_plugin() {
  shopt -s nullglob
  local archives=("$release"/pulumi-resource-remote-browser-v"$version"-*.tar.gz)
  if [ ${#archives[@]} -eq 0 ] || [ ! -f "$release/checksums.txt" ]; then
    die "the release has no plugin archives of $version or no checksums.txt: nothing uploaded"
  fi
  (cd "$release" && sha256sum --check --strict checksums.txt)
  if [ -n "$dir" ]; then
    mkdir -p "$dir"
  else
    : "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY names the repository whose release gets the archives}"
    # A re-run finds the release made, maybe with some of its assets.
    if ! gh release view "$tag" --repo "$GITHUB_REPOSITORY" --json tagName >/dev/null 2>&1; then
      local flags=(--verify-tag --title "$tag" --generate-notes)
      if [ "$prerelease" = true ]; then flags+=(--prerelease); fi
      gh release create "$tag" --repo "$GITHUB_REPOSITORY" "${flags[@]}"
    fi
  fi
  # What users may have downloaded is never replaced: an asset already there is left when its bytes are
  # these, and one whose bytes differ stops the upload before anything is uploaded.
  local published theirs missing=() file name
  theirs=$(mktemp -d)
  if [ -n "$dir" ]; then
    published=$(ls -A "$dir")
  else
    published=$(gh release view "$tag" --repo "$GITHUB_REPOSITORY" --json assets --jq '.assets[].name')
  fi
  for file in "${archives[@]}" "$release/checksums.txt"; do
    name=${file##*/}
    if ! grep -qxF "$name" <<<"$published"; then
      missing+=("$file")
      continue
    fi
    if [ -n "$dir" ]; then
      cp "$dir/$name" "$theirs/$name"
    else
      gh release download "$tag" --repo "$GITHUB_REPOSITORY" --pattern "$name" --dir "$theirs"
    fi
    if [ "$(sha256sum <"$theirs/$name")" != "$(sha256sum <"$file")" ]; then
      die "$tag already has an asset $name whose bytes differ from this build's: not replacing a published asset (delete it by hand if it must go)"
    fi
    echo "$name is published already, with the same bytes"
  done
  rm -rf "$theirs"
  if [ ${#missing[@]} -gt 0 ]; then
    if [ -n "$dir" ]; then cp "${missing[@]}" "$dir/"; else gh release upload "$tag" --repo "$GITHUB_REPOSITORY" "${missing[@]}"; fi
  fi
}

publish_npm() {
  # The dynamic provider's package and the native Node.js SDK, wherever the release put them.
  local tarballs tarball name
  mapfile -t tarballs < <(find "$release" -name "pulumi-remote-browser-$version.tgz" -o -name "*-pulumi-$version.tgz" | sort)
  if [ ${#tarballs[@]} -ne 2 ]; then
    die "expected the two npm tarballs of $version in $release, found ${#tarballs[@]}: ${tarballs[*]}"
  fi
  # A prerelease must not become what `npm install <name>` gets.
  local dist_tag=latest
  if [ "$prerelease" = true ]; then dist_tag=next; fi
  local where=() how=(--provenance)
  if [ -n "$registry" ]; then where=(--registry "$registry"); how=(); fi
  for tarball in "${tarballs[@]}"; do
    name=$(tar -xzOf "$tarball" package/package.json | jq -r .name)
    # A re-run skips what an earlier run published (npm refuses a version twice).
    if npm view "${where[@]}" "$name@$version" version >/dev/null 2>&1; then
      echo "$name@$version is published already"
      continue
    fi
    npm publish "${where[@]}" "${how[@]}" --access public --tag "$dist_tag" "$tarball"
  done
}

publish_pypi() {
  [ -n "$collect" ] || die "pypi needs --collect <folder>: where the wheel and the sdist go for the upload"
  mkdir -p "$collect"
  find "$release" \( -name 'pulumi_remote_browser-*.whl' -o -name 'pulumi_remote_browser-*.tar.gz' \) -exec cp {} "$collect/" \;
  ls "$collect"
  if [ "$(find "$collect" -maxdepth 1 -name '*.whl' | wc -l) $(find "$collect" -maxdepth 1 -name '*.tar.gz' | wc -l)" != "1 1" ]; then
    die "expected one wheel and one sdist of pulumi_remote_browser in $release"
  fi
  if [ "$simple_index" = true ]; then
    # PEP 503: one page per project (the name normalised), a link per file with its sha256 as fragment.
    local project=pulumi-remote-browser page file
    mkdir -p "$collect/simple/$project"
    printf '<!DOCTYPE html>\n<html><body><a href="%s/">%s</a></body></html>\n' "$project" "$project" >"$collect/simple/index.html"
    page="$collect/simple/$project/index.html"
    printf '<!DOCTYPE html>\n<html><body>\n' >"$page"
    for file in "$collect"/*.whl "$collect"/*.tar.gz; do
      printf '<a href="../../%s#sha256=%s">%s</a>\n' "${file##*/}" "$(sha256sum <"$file" | cut -d' ' -f1)" "${file##*/}" >>"$page"
    done
    printf '</body></html>\n' >>"$page"
  fi
}

publish_go() {
  # The module sits at sdk/go/remotebrowser of a commit on top of the release's, tagged
  # sdk/go/remotebrowser/v<version>: how Go finds a module in a subfolder of a repository.
  local mods module expected go_tag
  mapfile -t mods < <(find "$release" -path '*/remotebrowser/go.mod')
  if [ ${#mods[@]} -ne 1 ]; then
    die "expected one Go module (remotebrowser/go.mod) in $release, found ${#mods[@]}"
  fi
  : "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY names the repository the Go module path must be of}"
  module=$(sed -n 's/^module //p' "${mods[0]}")
  expected="github.com/$GITHUB_REPOSITORY/sdk/go/remotebrowser"
  if [ "$module" != "$expected" ]; then
    die "the Go module is $module, but this repository serves $expected: package.json's repository names another"
  fi
  go_tag="sdk/go/remotebrowser/$tag"
  if git ls-remote --exit-code --tags "$remote" "refs/tags/$go_tag" >/dev/null; then
    echo "$go_tag exists already"
    return 0
  fi
  rm -rf sdk/go/remotebrowser
  mkdir -p sdk/go
  cp -R "$(dirname "${mods[0]}")" sdk/go/remotebrowser
  git config user.name "github-actions[bot]"
  git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
  git add --force sdk/go/remotebrowser
  git commit --quiet --message "Go SDK of $tag"
  git tag --annotate "$go_tag" --message "Go SDK of $tag"
  git push "$remote" "refs/tags/$go_tag"
}

case "$part" in
  plugin) publish_plugin ;;
  npm) publish_npm ;;
  pypi) publish_pypi ;;
  go) publish_go ;;
  *) echo "publish: unknown part $part" >&2; usage ;;
esac
