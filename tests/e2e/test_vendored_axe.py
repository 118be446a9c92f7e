"""The axe-core the browser tests run is the pinned release, unchanged (scripts/vendor_axe.sh)."""

from __future__ import annotations

import hashlib
from pathlib import Path

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core"


def test_vendored_axe_matches_its_checksums_and_version() -> None:
    lines = (AXE / "SHA256SUMS").read_text().splitlines()
    assert sorted(line.split(maxsplit=1)[1] for line in lines) == ["./LICENSE", "./axe.min.js"]
    for line in lines:
        digest, name = line.split(maxsplit=1)
        assert hashlib.sha256((AXE / name).read_bytes()).hexdigest() == digest, name
    version = (AXE / "VERSION").read_text()
    assert version.startswith("axe-core 4.14.1 from the npm registry")
    assert "4.14.1" in (Path(__file__).resolve().parents[2] / "scripts" / "vendor_axe.sh").read_text()
    assert (AXE / "axe.min.js").read_text()[:40].startswith("/*! axe v4.14.1")
    assert "Mozilla Public License" in (AXE / "LICENSE").read_text()
