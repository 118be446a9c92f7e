#!/usr/bin/env bash
# Fetch the pinned axe-core release (the accessibility checker the browser tests run in each
# page) from the npm registry, check the tarball against its published integrity, and keep the
# files the tests need in tests/e2e/vendor/axe-core/ (committed: the tests need no network).
# To change the version, bump VERSION and INTEGRITY together (`npm view axe-core@X dist.integrity`).
set -euo pipefail

VERSION="4.14.1"
INTEGRITY="sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
FILES=(axe.min.js LICENSE)

cd "$(dirname "$0")/.."
dest=tests/e2e/vendor/axe-core
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack --silent "axe-core@${VERSION}" >/dev/null)
tarball="$work/axe-core-${VERSION}.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
  echo "axe-core@${VERSION}: integrity mismatch: got $actual" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"

rm -rf "$dest"
mkdir -p "$dest"
for f in "${FILES[@]}"; do
  cp "$work/package/$f" "$dest/$f"
done
printf 'axe-core %s from the npm registry\nintegrity %s\n' "$VERSION" "$INTEGRITY" > "$dest/VERSION"
(cd "$dest" && find . -type f ! -name SHA256SUMS ! -name VERSION | sort | xargs sha256sum > SHA256SUMS)
echo "vendored axe-core@${VERSION} into $dest"
