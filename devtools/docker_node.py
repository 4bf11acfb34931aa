"""An Elasticsearch node in a Docker container (testcontainers), used when a Docker engine
answers."""

from __future__ import annotations

import shutil
import subprocess

from devtools.distribution import ES_VERSION

ES_DOCKER_IMAGE = f"docker.elastic.co/elasticsearch/elasticsearch:{ES_VERSION}"


def docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False)
    return probe.returncode == 0


def start_docker() -> tuple[str, str]:
    """Start a testcontainers node; (container id, url)."""
    from testcontainers.community.elasticsearch import ElasticSearchContainer
    from testcontainers.core.config import testcontainers_config

    # Kept running after this process exits (no reaper); `stop` removes it by id.
    testcontainers_config.ryuk_disabled = True

    container = ElasticSearchContainer(ES_DOCKER_IMAGE, mem_limit="2g")
    container.with_env("xpack.security.enabled", "false")
    container.start()
    url = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(container.port)}"
    container_id = container.get_wrapped_container().id
    return str(container_id), url
