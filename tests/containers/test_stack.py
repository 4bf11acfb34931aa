"""The image and the compose stack end to end, as README "Container deployment" tells an operator
to run them: build the image, bring the stack up (Elasticsearch, the indexer job loading a mounted
folder, the API), wait for health, mint a token, call every endpoint once and check the answers
against the sample files, apply a weekly NPPES file with ``compose run indexer provider-indexer
update``, then take everything down. Host networking on free loopback ports
(docker-compose.host.yml). Where no Docker engine answers (`make engine-start` starts one on this
project's machines) it is skipped, saying so, except under `make container-test` with CI=true,
where it fails (tests.conftest.needs_docker)."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pytest
from testcontainers.core.config import testcontainers_config
from testcontainers.core.container import DockerContainer

from devtools.docker_node import engine_problem
from devtools.image import Images, build
from devtools.local_node import free_port
from devtools.settings import REPO_ROOT
from tests.conftest import TEST_ES_TIMEOUT_S, TEST_JVM_OPTIONS, needs_docker
from tests.containers.stack import (
    Stack,
    clean_env,
    compose_command,
    wait_answering,
    wait_healthy,
)
from tests.indexer.update_files import merge
from tests.source_rows import (
    active_rows,
    coverage_rows,
    in_force,
    is_active,
    nppes_rows,
    taxonomies,
)

SAMPLE = REPO_ROOT / "data" / "sample"
NPPES = "npidata_pfile_sample.csv.gz"
# Weekly files go in a subfolder: a load finds its NPPES file by name in the folder itself
# (indexer/sources/discovery.py takes the last npidata_pfile* there), and a weekly file is named
# alike.
WEEK = "weekly/npidata_pfile_20240212-20240218.csv"
SOURCE_MOUNT = "/data/source"  # where docker-compose.yml mounts the operator's folder
PRACTICE = "Provider Business Practice Location Address"
HANG_S = 600  # a guard against a hang, never a measure of speed
Row = dict[str, str]


@pytest.fixture(scope="module")
def images() -> Iterator[Images]:
    # The reaper's image needs a registry these machines cannot reach; each test removes the
    # containers it starts.
    testcontainers_config.ryuk_disabled = True
    problem = engine_problem()
    needs_docker(problem and f"no Docker engine can be had here ({problem}); make engine-start")
    tag = f"provider-directory:stack-test-{secrets.token_hex(4)}"
    try:
        yield build(tag)
    finally:
        subprocess.run(["docker", "rmi", "--force", tag], capture_output=True, check=False)
        subprocess.run(
            [
                "docker",
                "image",
                "prune",
                "--force",
                "--filter",
                "label=dev.provider-directory.stage=build",
            ],
            capture_output=True,
            check=False,
        )


@pytest.fixture(scope="module")
def operator_dir() -> Iterator[Path]:
    """The operator's folder: the sample's files and a weekly file made from them, readable by
    the image's unprivileged user."""
    folder = Path(tempfile.mkdtemp(prefix="pd-stack-", dir="/var/tmp"))
    try:
        folder.chmod(0o755)
        for path in SAMPLE.iterdir():
            if path.is_file():
                shutil.copy(path, folder / path.name)
        (folder / WEEK).parent.mkdir(mode=0o755)
        subprocess.run(
            [
                sys.executable, "-m", "indexer.cli", "generate-update",
                "--source", str(folder / NPPES), "--out", str(folder / WEEK),
                "--new", "2", "--changed", "6", "--deactivated", "1", "--reactivated", "0",
                "--stale", "1", "--invalid", "1", "--seed", "16",
            ],
            cwd=REPO_ROOT,
            check=True,
            capture_output=True,
        )  # fmt: skip
        for path in [*folder.glob("*.*"), folder / WEEK]:
            path.chmod(0o644)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def stack(images: Images, operator_dir: Path) -> Iterator[Stack]:
    command = compose_command()
    assert command, "no compose command: install docker-compose (Debian) or the compose plugin"
    es_port = free_port()
    env = clean_env(
        PD_IMAGE=images.app,
        PD_ES_IMAGE=images.elasticsearch,
        PD_SOURCE_DIR=str(operator_dir),
        PD_JWT_SECRET=secrets.token_urlsafe(32),
        PD_ES_JAVA_OPTS=f"-Xms512m -Xmx512m {TEST_JVM_OPTIONS}",
        PD_STACK_ES_PORT=str(es_port),
        PD_STACK_ES_TRANSPORT_PORT=str(free_port()),
        PD_STACK_API_PORT=str(api_port := free_port()),
        PD_STACK_ES_REQUEST_TIMEOUT_S=str(TEST_ES_TIMEOUT_S),  # no answer hangs on the box's speed
    )
    stack = Stack(
        command=command,
        project=f"pdstack{secrets.token_hex(4)}",
        env=env,
        api_url=f"http://127.0.0.1:{api_port}",
    )
    try:
        stack.compose("up", "--detach", timeout=900)
        wait_answering(f"{stack.api_url}/readyz", timeout_s=HANG_S)
        yield stack
    except BaseException:
        print(stack.compose("logs", "--tail", "60", check=False).stdout, file=sys.stderr)
        raise
    finally:
        stack.compose("down", "--volumes", "--remove-orphans", check=False, timeout=300)


@pytest.fixture(scope="module")
def token(stack: Stack) -> str:
    """The README's one command: a token minted inside the API container, with its secret."""
    minted = stack.compose("exec", "-T", "api", "provider-directory", "token").stdout.strip()
    assert minted.count(".") == 2, minted
    return minted


@pytest.fixture(scope="module")
def week_npis(operator_dir: Path) -> set[str]:
    return {row["NPI"] for row in nppes_rows(operator_dir / WEEK)}


def _untouched_individual(week: set[str]) -> Row:
    """An active individual the week does not touch, whose last name is the sample's only one."""
    rows = active_rows(SAMPLE / NPPES)
    names: dict[str, int] = {}
    for row in rows:
        names[row["Provider Last Name (Legal Name)"]] = (
            names.get(row["Provider Last Name (Legal Name)"], 0) + 1
        )
    return next(
        row
        for row in rows
        if row["Entity Type Code"] == "1"
        and row["NPI"] not in week
        and names[row["Provider Last Name (Legal Name)"]] == 1
        and len(row[f"{PRACTICE} Postal Code"]) >= 5
    )


def _iso(mdy: str) -> str | None:
    return datetime.strptime(mdy, "%m/%d/%Y").date().isoformat() if mdy else None


def test_the_image_runs_unprivileged_and_says_what_it_is(images: Images) -> None:
    [inspect] = json.loads(
        subprocess.run(
            ["docker", "image", "inspect", images.app], capture_output=True, check=True, text=True
        ).stdout
    )
    config = inspect["Config"]
    assert config["User"] == "10001:10001"
    assert config["Cmd"] == ["provider-directory", "serve"]
    assert config["Healthcheck"]["Test"][0] == "CMD"
    labels = config["Labels"]
    assert labels["org.opencontainers.image.title"] == "provider-directory"
    assert len(labels["org.opencontainers.image.revision"]) == 40
    # Only what runs: no pip, no compiler, no tests in the image.
    script = "python -c 'import pip' 2>/dev/null && echo pip; command -v gcc cc; ls /app"
    probe = DockerContainer(
        images.app, command=f'sh -c "{script}"', network_mode="none", read_only=True
    )
    try:
        probe.start()
        exit_code = probe.get_wrapped_container().wait(timeout=HANG_S)["StatusCode"]
        stdout, _ = probe.get_logs()
    finally:
        probe.stop()
    assert (exit_code, stdout.decode().split()) == (0, ["rejects"]), stdout


def test_the_engine_finds_the_api_healthy_by_its_healthcheck(stack: Stack) -> None:
    """The image's HEALTHCHECK, as the engine runs it on the stack's API (its first probe comes
    an interval after the start; the stack was ready when its /readyz answered)."""
    wait_healthy(stack.container("api"), timeout_s=HANG_S)


def test_every_endpoint_answers_what_the_sample_says(
    stack: Stack, token: str, week_npis: set[str]
) -> None:
    row = _untouched_individual(week_npis)
    npi, zip5 = row["NPI"], row[f"{PRACTICE} Postal Code"][:5]
    assert stack.call("GET", f"/v2/providers/{npi}").status == 401  # a token is needed

    provider = stack.call("GET", f"/v2/providers/{npi}", token)
    assert provider.status == 200, provider.body
    assert provider.body["npis"] == [npi]
    assert provider.body["lastName"] == row["Provider Last Name (Legal Name)"]
    assert provider.body["firstName"] == (row["Provider First Name"] or None)
    assert {s["code"] for s in provider.body["specialties"]} == set(taxonomies(row))
    assert provider.body["lastUpdated"] == _iso(row["Last Update Date"])

    locations = stack.call("GET", f"/v2/providers/{npi}/locations", token)
    assert locations.status == 200, locations.body
    assert any(
        (loc["address"]["line1"], loc["address"]["city"], (loc["address"]["zip"] or "")[:5])
        == (
            row["Provider First Line Business Practice Location Address"],
            row[f"{PRACTICE} City Name"],
            zip5,
        )
        for loc in locations.body
    ), locations.body

    search = stack.call(
        "POST",
        "/v2/providers/search",
        token,
        {"query": row["Provider Last Name (Legal Name)"], "location": zip5, "radius": 25},
    )
    assert search.status == 200, search.body
    assert npi in [result["npis"][0] for result in search.body["results"]]

    rows = [r for r in coverage_rows(SAMPLE) if r["npi"] not in week_npis]
    chosen = next(r for r in rows if r["network_status"] == "in_network" and not r["location_id"])
    day = date.fromisoformat(chosen["effective_date"] or "2026-01-01")
    coverage = stack.call(
        "POST",
        "/v2/providers/coverage",
        token,
        {
            "contractYear": int(chosen["contract_year"]),
            "bidIds": [chosen["bid_id"]],
            "npis": [{"npi": chosen["npi"]}],
            "asOf": day.isoformat(),
        },
    )
    assert coverage.status == 200, coverage.body
    [plan] = coverage.body
    [entry] = plan["providers"]
    assert (entry["npi"], entry["networkStatus"]) == (
        chosen["npi"],
        _expected_status(rows, chosen["bid_id"], chosen["npi"], day),
    )


def _expected_status(rows: list[Row], bid: str, npi: str, day: date) -> str:
    relevant = [r for r in rows if r["bid_id"] == bid and r["npi"] == npi and in_force(r, day)]
    return (
        "in_network"
        if any(r["network_status"] == "in_network" for r in relevant)
        else ("out_of_network")
    )


def _npi_valid(npi: str) -> bool:
    """The NPI check digit (Luhn over 80840 + the first nine digits), written here apart from
    core.npi on purpose."""
    digits = [int(d) for d in "80840" + npi[:9]]
    total = 0
    for position, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if position % 2 == 0 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return len(npi) == 10 and npi.isdigit() and (10 - total % 10) % 10 == int(npi[9])


def test_the_weekly_update_runs_as_a_compose_job(
    stack: Stack, token: str, operator_dir: Path, tmp_path: Path
) -> None:
    week = nppes_rows(operator_dir / WEEK)
    base = {row["NPI"]: row for row in nppes_rows(operator_dir / NPPES)}
    merged = {
        row["NPI"]: row
        for row in nppes_rows(
            merge(operator_dir / NPPES, [operator_dir / WEEK], operator_dir / "m.csv")
        )
    }
    update = stack.compose(
        "run", "--rm", "indexer", "provider-indexer", "update", "--nppes", f"{SOURCE_MOUNT}/{WEEK}"
    )
    assert update.returncode == 0, update.stderr

    changed = 0
    for row in week:
        npi = row["NPI"]
        answer = stack.call("GET", f"/v2/providers/{npi}", token)
        if not _npi_valid(npi):  # nobody's: a wrong check digit (API 1.8.0)
            assert (answer.status, answer.body["code"]) == (404, "provider_not_found"), npi
            continue
        expected = merged[npi]
        if not is_active(expected):
            assert answer.status == 404, (npi, answer.body)
            continue
        assert answer.status == 200, (npi, answer.body)
        assert answer.body["lastUpdated"] == _iso(expected["Last Update Date"]), npi
        assert answer.body["lastName"] == (expected["Provider Last Name (Legal Name)"] or None)
        if npi in base and expected["Last Update Date"] != base[npi]["Last Update Date"]:
            changed += 1
    assert changed >= 1, "the week should change at least one provider of the sample"
    # The one invalid row went to the reject file, on the indexer's writable volume.
    listing = stack.compose(
        "run", "--rm", "--no-deps", "indexer", "python", "-c",
        "import pathlib; print(sum(1 for p in pathlib.Path('/app/rejects').glob('*.csv')))",
    )  # fmt: skip
    assert int(listing.stdout.split()[-1]) >= 1


def test_logs_are_json_lines_on_the_console(stack: Stack, token: str) -> None:
    stack.call("GET", "/healthz")
    logs = stack.compose("logs", "--no-color", "api").stdout.splitlines()
    entries = [line.split("| ", 1)[1] for line in logs if "| " in line]
    assert entries, logs
    parsed = [json.loads(entry) for entry in entries]
    assert any(entry.get("event") == "access" for entry in parsed)


def test_sigterm_stops_the_api_at_once_and_cleanly(stack: Stack, images: Images) -> None:
    """A second API container on the stack's Elasticsearch, read-only like the stack's: SIGTERM
    (docker stop) ends it cleanly, with exit code 0, not by the kill that follows the grace."""
    port = free_port()
    api = DockerContainer(
        images.app,
        network_mode="host",
        read_only=True,
        env={
            "PD_PORT": str(port),
            "PD_HOST": "127.0.0.1",
            "ELASTICSEARCH_URL": f"http://127.0.0.1:{stack.env['PD_STACK_ES_PORT']}",
            "PD_JWT_SECRET": stack.env["PD_JWT_SECRET"],
        },
    )
    api.with_tmpfs_mount("/tmp")
    try:
        api.start()
        container = api.get_wrapped_container()
        wait_answering(f"http://127.0.0.1:{port}/healthz", timeout_s=HANG_S)
        container.stop(timeout=HANG_S)  # SIGTERM, then SIGKILL: long after any graceful stop
        container.reload()
        assert (container.attrs["State"]["ExitCode"], container.status) == (0, "exited")
    finally:
        api.stop()
