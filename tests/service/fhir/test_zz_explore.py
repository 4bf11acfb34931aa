import json
from tests.conftest import ApiClient

async def test_explore(api: ApiClient) -> None:
    out = {}
    for path in ["/fhir/Practitioner?_count=2", "/fhir/Organization?_count=2", "/fhir/Location?_count=3", "/fhir/PractitionerRole?_count=2", "/fhir/Practitioner?family=rowe", "/fhir/Practitioner/1230384046", "/fhir/Organization?_count=2&name=burr"]:
        r = await api.get(path)
        out[path] = [r.status, await r.json()]
    open("/tmp/fhirx/out.json", "w").write(json.dumps(out, indent=1))
