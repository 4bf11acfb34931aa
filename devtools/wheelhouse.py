"""Wheels for the image, made on the host (``pip wheel``): the project's runtime dependencies and
its build backend, in containers/wheelhouse/. The Dockerfile installs from there, so an image
builds where nothing inside a build can reach a package index (README "Container deployment").

The wheels are for this interpreter's version and platform, which must be the base image's
(Python 3.11 on glibc: python:3.11-slim or the Debian bookworm stand-in), and pinned to the
versions installed here (``pip freeze`` as constraints), so the image runs what the tests ran.
They are made again only when pyproject.toml, those versions or the interpreter changed (a stamp
file records them), and kept per recipe in the user's cache folder (``$XDG_CACHE_HOME`` or
~/.cache, provider-directory/wheelhouse), so a new checkout links them instead of making them.

Usage: ``python -m devtools.wheelhouse`` (prints the folder).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from devtools.settings import REPO_ROOT, LauncherSettings

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
    made = LauncherSettings().user_cache_dir / "provider-directory" / "wheelhouse" / recipe
    if not any(made.glob("*.whl")):
        _make(constraints, made)
    for wheel in made.glob("*.whl"):
        try:
            os.link(wheel, WHEELHOUSE / wheel.name)
        except OSError:  # another file system
            shutil.copyfile(wheel, WHEELHOUSE / wheel.name)
    STAMP.write_text(recipe)
    return WHEELHOUSE


if __name__ == "__main__":
    print(fill())


def _make(constraints: str, made: Path) -> None:
    """``pip wheel`` of the recipe into ``made`` (whole or not at all)."""
    made.parent.mkdir(parents=True, exist_ok=True)
    print(f"pip wheel into {made} ...", file=sys.stderr, flush=True)
    building = Path(tempfile.mkdtemp(dir=made.parent))
    try:
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
                    str(building),
                    str(REPO_ROOT),
                    *BUILD_BACKEND,
                ],
                check=True,
            )
        for own in building.glob(PROJECT_WHEEL):
            own.unlink()
        shutil.rmtree(made, ignore_errors=True)
        building.rename(made)
    finally:
        shutil.rmtree(building, ignore_errors=True)
