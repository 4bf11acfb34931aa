"""Stand-in base images for a machine that reaches no image registry (this project's machines
reach Debian's packages and Maven Central, not Docker Hub nor Elastic's registry).

- ``provider-directory/debian-python``: Debian bookworm from ``debootstrap --variant=minbase`` with
  Python 3.11 and venv, for the project's Dockerfile (``PYTHON_BASE``) in place of
  ``python:3.11-slim``.
- ``provider-directory/debian-jre``: the same with OpenJDK 17's headless JRE and curl.
- ``provider-directory/elasticsearch``: the integ-test-zip the launcher uses
  (devtools/distribution.py, core analysis only) on that JRE, laid out like the official image
  (containers/elasticsearch/), in place of ``docker.elastic.co/elasticsearch/elasticsearch``.

Each image carries the hash of its recipe in a label, and is rebuilt only when the recipe changed
or the image is gone, so CI pays for debootstrap once per machine.

Usage: ``python -m devtools.base_images`` (prints ``NAME=image`` lines for the build).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from devtools.distribution import ES_VERSION, LauncherError, install_home
from devtools.settings import REPO_ROOT, LauncherSettings

RECIPE_LABEL = "dev.provider-directory.recipe"
SUITE = "bookworm"
ES_CONTEXT = REPO_ROOT / "containers" / "elasticsearch"
# What a minbase root does not need in an image: package caches and lists, documentation.
TRIMMED = ("var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man")


@dataclass(frozen=True)
class RootfsImage:
    """A Debian root filesystem made by debootstrap and imported as an image."""

    name: str
    packages: tuple[str, ...]
    env_path: str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    def recipe(self) -> str:
        text = f"{SUITE} minbase {','.join(self.packages)} {TRIMMED} {self.env_path}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]


DEBIAN_PYTHON = RootfsImage(
    f"provider-directory/debian-python:{SUITE}", ("python3", "python3-venv", "ca-certificates")
)
DEBIAN_JRE = RootfsImage(
    f"provider-directory/debian-jre:{SUITE}",
    ("openjdk-17-jre-headless", "ca-certificates", "curl"),
)
ELASTICSEARCH = f"provider-directory/elasticsearch:{ES_VERSION}"


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def image_recipe(name: str) -> str | None:
    """The recipe label of a present image, "" when it has none, None when it is absent."""
    template = f'{{{{ index .Config.Labels "{RECIPE_LABEL}" }}}}'
    inspect = subprocess.run(
        ["docker", "image", "inspect", "--format", template, name],
        capture_output=True,
        text=True,
        check=False,
    )
    if inspect.returncode != 0:
        return None
    value = inspect.stdout.strip()
    return "" if value == "<no value>" else value


def _debootstrap(image: RootfsImage, root: Path) -> None:
    if shutil.which("debootstrap") is None:
        raise LauncherError("debootstrap is needed to build the stand-in base images.")
    subprocess.run(
        [
            "debootstrap",
            "--variant=minbase",
            f"--include={','.join(image.packages)}",
            SUITE,
            str(root),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for part in TRIMMED:
        for child in (root / part).glob("*"):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()


def ensure_rootfs(image: RootfsImage) -> str:
    """The image, built (debootstrap, then ``docker import``) unless present with this recipe."""
    recipe = image.recipe()
    if image_recipe(image.name) == recipe:
        return image.name
    _say(f"building {image.name} with debootstrap ({', '.join(image.packages)}) ...")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as scratch:
        root = Path(scratch) / "rootfs"
        _debootstrap(image, root)
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(
            [
                "docker",
                "import",
                "--change",
                f"ENV PATH={image.env_path}",
                "--change",
                f"LABEL {RECIPE_LABEL}={recipe}",
                "--change",
                'CMD ["/bin/bash"]',
                "-",
                image.name,
            ],
            stdin=tar.stdout,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        if tar.wait() != 0:
            raise LauncherError(f"tar of the {image.name} root filesystem failed")
    return image.name


def _context_recipe(base_recipe: str) -> str:
    digest = hashlib.sha256(f"{ES_VERSION} {base_recipe}".encode())
    for path in sorted(ES_CONTEXT.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def ensure_elasticsearch(settings: LauncherSettings | None = None) -> str:
    """The Elasticsearch stand-in, built from the launcher's distribution on the JRE base."""
    base = ensure_rootfs(DEBIAN_JRE)
    recipe = _context_recipe(DEBIAN_JRE.recipe())
    if image_recipe(ELASTICSEARCH) == recipe:
        return ELASTICSEARCH
    _say(f"building {ELASTICSEARCH} from the integ-test-zip ...")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as scratch:
        context = Path(scratch)
        install_home(settings or LauncherSettings(), context)  # unzips elasticsearch-<version>/
        for path in ES_CONTEXT.iterdir():
            shutil.copy2(path, context / path.name)
        subprocess.run(
            [
                "docker",
                "build",
                "--network",
                "host",
                "--build-arg",
                f"BASE={base}",
                "--build-arg",
                f"ES_VERSION={ES_VERSION}",
                "--label",
                f"{RECIPE_LABEL}={recipe}",
                "--tag",
                ELASTICSEARCH,
                str(context),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return ELASTICSEARCH


def main() -> int:
    try:
        python = ensure_rootfs(DEBIAN_PYTHON)
        elasticsearch = ensure_elasticsearch()
    except (LauncherError, subprocess.CalledProcessError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"PYTHON_BASE={python}")
    print(f"PD_ES_IMAGE={elasticsearch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
