"""The development tools read their environment only through their settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools import es_launcher
from devtools.settings import REPO_ROOT, DevServerSettings, LauncherSettings

VARIABLES = (
    "PD_ES_MODE",
    "PD_ES_DOCKER_IMAGE",
    "PD_ES_PULL_TIMEOUT",
    "ELASTICSEARCH_URL",
    "PD_CACHE_DIR",
    "PD_ES_HEAP",
    "PD_ES_START_TIMEOUT",
    "ES_JAVA_HOME",
    "JAVA_HOME",
    "PORT",
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_launcher_defaults(clean_env: pytest.MonkeyPatch) -> None:
    settings = LauncherSettings()
    assert settings.elasticsearch_url is None
    assert settings.cache_dir == REPO_ROOT / ".cache"
    assert (settings.heap, settings.start_timeout_s, settings.java_home) == ("1g", 120.0, None)
    assert (settings.mode, settings.docker_image, settings.pull_timeout_s) == ("auto", None, 600.0)
    assert DevServerSettings().port == 8080


def test_launcher_reads_its_variables(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("ELASTICSEARCH_URL", "http://127.0.0.1:9999")
    clean_env.setenv("PD_CACHE_DIR", str(tmp_path))
    clean_env.setenv("PD_ES_HEAP", "512m")
    clean_env.setenv("PD_ES_START_TIMEOUT", "30")
    clean_env.setenv("JAVA_HOME", "/opt/jdk")
    clean_env.setenv("PORT", "9090")
    clean_env.setenv("PD_ES_MODE", "docker")
    clean_env.setenv("PD_ES_DOCKER_IMAGE", "example/elasticsearch:8")
    clean_env.setenv("PD_ES_PULL_TIMEOUT", "5")
    settings = LauncherSettings()
    assert (settings.mode, settings.docker_image, settings.pull_timeout_s) == (
        "docker",
        "example/elasticsearch:8",
        5.0,
    )
    assert settings.elasticsearch_url == "http://127.0.0.1:9999"
    assert (settings.cache_dir, settings.heap, settings.start_timeout_s) == (tmp_path, "512m", 30.0)
    assert settings.java_home == Path("/opt/jdk")
    clean_env.setenv("ES_JAVA_HOME", "/opt/es-jdk")  # Elasticsearch's own variable wins
    assert LauncherSettings().java_home == Path("/opt/es-jdk")
    assert DevServerSettings().port == 9090


def test_a_bad_heap_is_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("PD_ES_HEAP", "lots")
    with pytest.raises(ValueError, match="PD_ES_HEAP"):
        LauncherSettings()


def test_the_launcher_reads_its_settings_when_called(
    clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # es_launcher was imported before the variables changed: it reads them when called.
    clean_env.setenv("PD_CACHE_DIR", str(tmp_path))
    assert es_launcher.status() == (False, "no node running")
    clean_env.setenv("ELASTICSEARCH_URL", "http://127.0.0.1:9")
    assert es_launcher.status() == (False, "external http://127.0.0.1:9 not answering")
