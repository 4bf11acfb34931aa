"""Build the project's image (Dockerfile) on whatever this machine has: the official base images
when the Docker engine has them or can pull them, else the debootstrap stand-ins
(devtools/base_images.py); Python packages from the host-made wheelhouse (devtools/wheelhouse.py),
so the build reaches no network (``--network host`` only lets a stand-in base resolve nothing).

Usage: ``python -m devtools.image [--tag TAG]``: builds, then prints the variables
docker-compose.yml reads (``PD_IMAGE``, ``PD_ES_IMAGE``), one ``NAME=value`` a line.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from devtools.base_images import DEBIAN_PYTHON, ensure_elasticsearch, ensure_rootfs
from devtools.distribution import LauncherError
from devtools.docker_node import ES_DOCKER_IMAGE, engine_problem, image_problem
from devtools.settings import REPO_ROOT, LauncherSettings
from devtools.wheelhouse import fill

OFFICIAL_PYTHON = "python:3.11-slim"
DEFAULT_TAG = "provider-directory:latest"
# The Dockerfile's dependencies stage, tagged so that removing the untagged build stages (the
# stack test's cleanup) leaves the next build its cache.
DEPS_TAG = "provider-directory/deps:latest"


@dataclass(frozen=True)
class Images:
    app: str
    elasticsearch: str

    def env(self) -> dict[str, str]:
        """What docker-compose.yml reads to use these images."""
        return {"PD_IMAGE": self.app, "PD_ES_IMAGE": self.elasticsearch}


def _available(image: str, settings: LauncherSettings) -> bool:
    return image_problem(image, settings.pull_timeout_s) is None


def python_base(settings: LauncherSettings) -> str:
    if _available(OFFICIAL_PYTHON, settings):
        return OFFICIAL_PYTHON
    return ensure_rootfs(DEBIAN_PYTHON)


def elasticsearch_image(settings: LauncherSettings) -> str:
    if _available(ES_DOCKER_IMAGE, settings):
        return ES_DOCKER_IMAGE
    return ensure_elasticsearch(settings)


def _revision() -> str:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return head.stdout.strip() or "unknown"


def build_app(tag: str, base: str) -> str:
    """``docker build`` of the Dockerfile from the wheelhouse alone; the tag."""
    fill()
    created = datetime.now(UTC).replace(microsecond=0).isoformat()
    build_args = {
        "PYTHON_BASE": base,
        "PIP_NO_INDEX": "1",
        "REVISION": _revision(),
        "CREATED": created,
    }
    args = ["docker", "build", "--network", "host"]
    for key, value in build_args.items():
        args += ["--build-arg", f"{key}={value}"]
    for target in (["--target", "deps", "--tag", DEPS_TAG], ["--tag", tag]):
        subprocess.run([*args, *target, str(REPO_ROOT)], check=True, stdout=subprocess.DEVNULL)
    return tag


def build(tag: str = DEFAULT_TAG, settings: LauncherSettings | None = None) -> Images:
    """Both images the stack needs, the app's built now."""
    settings = settings or LauncherSettings()
    problem = engine_problem()
    if problem is not None:
        raise LauncherError(f"cannot build images: {problem}")
    return Images(
        app=build_app(tag, python_base(settings)), elasticsearch=elasticsearch_image(settings)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tag", default=DEFAULT_TAG)
    args = parser.parse_args(argv)
    try:
        images = build(args.tag)
    except (LauncherError, subprocess.CalledProcessError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for key, value in images.env().items():
        print(f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
