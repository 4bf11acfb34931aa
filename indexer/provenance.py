"""Which files a version was built from, recorded in its indices' ``_meta`` by ``load``.

``update --nppes`` rebuilds changed providers with the same joins as the rest of the version
(Doctors & Clinicians addresses and affiliations, hospital names, taxonomy names), so it reads
the side files the version was built from: their paths are recorded with a SHA-256 each, and an
update refuses to join with a file that is gone or has changed since (its providers would
disagree with every other provider of the version). An operator who replaced the side files on
purpose names them with the same flags as ``load``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.sources.discovery import SourceFiles


@dataclass(frozen=True)
class JoinFiles:
    """The side files an NPPES row is joined with."""

    nucc: Path
    dac: tuple[Path, ...] = ()
    hospitals: Path | None = None


class ProvenanceError(ValueError):
    """The recorded side files cannot be used as they are."""


def _digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _fingerprint(path: Path) -> dict[str, Any]:
    return {"path": str(path.resolve()), "bytes": path.stat().st_size, "sha256": _digest(path)}


def _named(path: Path) -> dict[str, Any]:
    """Files recorded for the operator only (not read again): no digest of a 1 GB file."""
    return {"path": str(path.resolve()), "bytes": path.stat().st_size}


def describe(sources: SourceFiles) -> dict[str, Any]:
    """What goes into ``_meta.pd.sources`` of a new version."""
    return {
        "nppes": _named(sources.nppes) if sources.nppes else None,
        "planNet": {"path": str(sources.plan_net.resolve()), "name": sources.plan_net_name}
        if sources.plan_net
        else None,
        "nucc": _fingerprint(sources.nucc),
        "dac": [_fingerprint(path) for path in sources.dac],
        "hospitals": _fingerprint(sources.hospitals) if sources.hospitals else None,
        "plans": _named(sources.plans) if sources.plans else None,
        "coverage": [_named(path) for path in sources.coverage],
    }


def _check(entry: dict[str, Any], role: str) -> Path:
    path = Path(entry["path"])
    if not path.is_file():
        raise ProvenanceError(f"the {role} file the live version was built from is gone: {path}")
    if path.stat().st_size != entry["bytes"] or _digest(path) != entry["sha256"]:
        raise ProvenanceError(
            f"the {role} file the live version was built from has changed since: {path}"
        )
    return path


def recorded_join_files(sources: dict[str, Any] | None) -> JoinFiles:
    """The side files of the live version, checked unchanged; ProvenanceError says what to do."""
    if not sources:
        raise ProvenanceError("the live version does not record the files it was built from")
    try:
        return JoinFiles(
            nucc=_check(sources["nucc"], "NUCC"),
            dac=tuple(_check(entry, "DAC") for entry in sources["dac"]),
            hospitals=_check(sources["hospitals"], "hospitals") if sources["hospitals"] else None,
        )
    except ProvenanceError as error:
        raise ProvenanceError(
            f"{error}. Give the side files to join with (--source-dir or --nucc/--dac/"
            "--hospitals, as for load); providers not in this update keep their old joins"
            " until the next full load"
        ) from None
