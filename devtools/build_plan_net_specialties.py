"""The NUCC codes of the Plan-Net specialty value sets -> core/plan_net_specialties.json, read from
the guide's package (the validator's copy): ``python -m devtools.build_plan_net_specialties``."""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

from core.plan_net_codes import SPECIALTY_VALUE_SETS

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKAGE = ROOT / "tools/fhir-validator/src/main/resources/packages/plannet.tgz"
OUTPUT = ROOT / "core/plan_net_specialties.json"


def _codes(package: tarfile.TarFile, name: str) -> list[str]:
    member = package.extractfile(f"package/ValueSet-{name}.json")
    if member is None:
        raise SystemExit(f"{name} is not in the package")
    compose = json.load(member)["compose"]
    return sorted(c["code"] for include in compose["include"] for c in include["concept"])


def render(package_path: Path) -> str:
    with tarfile.open(package_path) as package:
        table = {name: _codes(package, name) for name in SPECIALTY_VALUE_SETS}
    return json.dumps(table, indent=0) + "\n"


def main() -> None:
    package = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PACKAGE
    OUTPUT.write_text(render(package), encoding="utf-8")


if __name__ == "__main__":
    main()
