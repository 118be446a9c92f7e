#!/usr/bin/env bash
# Fetch the pinned htmx release from the npm registry, check it, and vendor the files the
# app serves into static/vendor/htmx/ (with its licence and a SHA256SUMS file).
# Run it again only to change the version: bump VERSION and INTEGRITY together.
set -euo pipefail

VERSION="4.0.1"
INTEGRITY="sha512-oF7JgXhDW9UXCy/k1ZYFUQgzu/rm19ORWPSPNL91vPluB2PB9+MV55tyQdH/w7o2EAbTYUG5SDW1R60mdkdqGg=="
FILES=(dist/htmx.js dist/htmx.min.js dist/ext/hx-ws.js dist/ext/hx-ws.min.js LICENSE)

cd "$(dirname "$0")/.."
dest=static/vendor/htmx
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "htmx.org@${VERSION}" >/dev/null)
tarball="$work/htmx.org-${VERSION}.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
  echo "htmx.org@${VERSION}: integrity mismatch: got $actual" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"

rm -rf "$dest"
mkdir -p "$dest/ext"
for f in "${FILES[@]}"; do
  target="$dest/${f#dist/}"
  cp "$work/package/$f" "$target"
done
printf 'htmx.org %s from the npm registry\nintegrity %s\n' "$VERSION" "$INTEGRITY" > "$dest/VERSION"
(cd "$dest" && find . -type f ! -name SHA256SUMS ! -name VERSION | sort | xargs sha256sum > SHA256SUMS)
echo "vendored htmx.org@${VERSION} into $dest"
