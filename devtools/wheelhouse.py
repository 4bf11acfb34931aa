"""Wheels for the image, made on the host (``pip wheel``): the project's runtime dependencies and
its build backend, in containers/wheelhouse/. The Dockerfile installs from there, so an image
builds where nothing inside a build can reach a package index (README "Container deployment").

The wheels are for this interpreter's version and platform, which must be the base image's
(Python 3.11 on glibc: python:3.11-slim or the Debian bookworm stand-in), and pinned to the
versions installed here (``pip freeze`` as constraints), so the image runs what the tests ran.
They are made again only when pyproject.toml, those versions or the interpreter changed (a stamp
file records them).

Usage: ``python -m devtools.wheelhouse`` (prints the folder).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from devtools.settings import REPO_ROOT

WHEELHOUSE = REPO_ROOT / "containers" / "wheelhouse"
STAMP = WHEELHOUSE / ".stamp"
# The project is built from its sources inside the image: its own wheel is not kept.
PROJECT_WHEEL = "provider_directory-*.whl"
BUILD_BACKEND = ("setuptools>=69", "wheel")


def _installed() -> str:
    """This environment's versions, as pip constraints (the project itself left out)."""
    freeze = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        capture_output=True,
        text=True,
        check=True,
    )
    return "".join(line + "\n" for line in freeze.stdout.splitlines() if "==" in line)


def _recipe(constraints: str) -> str:
    digest = hashlib.sha256((REPO_ROOT / "pyproject.toml").read_bytes())
    digest.update(f"{sys.implementation.cache_tag} {sys.platform}\n{constraints}".encode())
    return digest.hexdigest()[:16]


def fill() -> Path:
    """The wheelhouse, made again when its recipe changed."""
    constraints = _installed()
    recipe = _recipe(constraints)
    if STAMP.exists() and STAMP.read_text() == recipe and any(WHEELHOUSE.glob("*.whl")):
        return WHEELHOUSE
    for old in WHEELHOUSE.glob("*.whl"):
        old.unlink()
    print(f"pip wheel into {WHEELHOUSE} ...", file=sys.stderr, flush=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as pins:
        pins.write(constraints)
        pins.flush()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--disable-pip-version-check",
                "--constraint",
                pins.name,
                "--wheel-dir",
                str(WHEELHOUSE),
                str(REPO_ROOT),
                *BUILD_BACKEND,
            ],
            check=True,
        )
    for own in WHEELHOUSE.glob(PROJECT_WHEEL):
        own.unlink()
    STAMP.write_text(recipe)
    return WHEELHOUSE


if __name__ == "__main__":
    print(fill())
