"""The Elasticsearch distribution for development: fetched once from Maven Central, unpacked
where the unprivileged node user can reach it (Elasticsearch refuses to run as root)."""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from devtools.settings import LauncherSettings

ES_VERSION = "8.19.21"
ES_ARTIFACT = f"org.elasticsearch.distribution.integ-test-zip:elasticsearch:{ES_VERSION}:zip"
NODE_USER = "pd-elasticsearch"
# Used when the node user cannot traverse the checkout (e.g. a clone under /root or mktemp -d).
FALLBACK_NODE_ROOT = Path("/var/tmp/provider-directory")


class LauncherError(RuntimeError):
    """Elasticsearch could not be provided; the message says why and what to do."""


def cache_dir(settings: LauncherSettings) -> Path:
    return settings.cache_dir.resolve()


def is_root() -> bool:
    return os.geteuid() == 0


def _reachable_by_others(path: Path) -> bool:
    """True when a non-owner can traverse every directory from / down to ``path``."""
    for part in [path, *path.parents]:
        if part.exists() and not part.stat().st_mode & stat.S_IXOTH:
            return False
    return True


def node_root(settings: LauncherSettings) -> Path:
    """Where the unpacked distribution, data and logs live (must be reachable by the node user)."""
    preferred = cache_dir(settings) / "es-node"
    if not is_root() or _reachable_by_others(preferred.parent):
        return preferred
    # One node root per checkout, so two clones never share a data directory.
    checkout = hashlib.sha1(str(cache_dir(settings)).encode()).hexdigest()[:10]
    return FALLBACK_NODE_ROOT / checkout / "es-node"


def java_home(settings: LauncherSettings) -> str:
    if settings.java_home is not None:
        return str(settings.java_home)
    java = shutil.which("java", path=settings.path)
    if java is None:
        raise LauncherError("No JDK found: install OpenJDK 17+ or set ES_JAVA_HOME.")
    return str(Path(java).resolve().parent.parent)


def _fetch_distribution(settings: LauncherSettings) -> Path:
    dist_dir = cache_dir(settings) / "dist"
    archive = dist_dir / f"elasticsearch-{ES_VERSION}.zip"
    if archive.exists():
        return archive
    mvn = shutil.which("mvn", path=settings.path)
    if mvn is None:
        raise LauncherError("Maven (mvn) is needed to fetch Elasticsearch from Maven Central.")
    print(f"Fetching Elasticsearch {ES_VERSION} from Maven Central ...", file=sys.stderr)
    dist_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            mvn,
            "-q",
            "dependency:copy",
            f"-Dartifact={ES_ARTIFACT}",
            f"-DoutputDirectory={dist_dir}",
        ],
        check=True,
    )
    return archive


def install_home(settings: LauncherSettings, root: Path) -> Path:
    home = root / f"elasticsearch-{ES_VERSION}"
    if (home / "bin" / "elasticsearch").exists():
        return home
    archive = _fetch_distribution(settings)
    root.mkdir(parents=True, exist_ok=True)
    # unzip keeps the executable bits that Python's zipfile drops.
    subprocess.run(["unzip", "-q", "-o", str(archive), "-d", str(root)], check=True)
    return home


def _ensure_node_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(NODE_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NODE_USER],
            check=True,
        )
        return pwd.getpwnam(NODE_USER)


def prepare_for_user(root: Path) -> pwd.struct_passwd | None:
    if not is_root():
        return None
    user = _ensure_node_user()
    for path in [root, *root.rglob("*")]:
        os.lchown(path, user.pw_uid, user.pw_gid)
    for parent in root.parents:
        if parent.exists() and not parent.stat().st_mode & stat.S_IXOTH:
            raise LauncherError(
                f"User {NODE_USER} cannot traverse {parent}; set PD_CACHE_DIR to a directory that "
                "every user can reach (e.g. under /var/tmp)."
            )
    return user
