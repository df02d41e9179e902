"""The JSON API over real HTTP: write it (and, once `errdex build` exists, build the whole site), serve the
folder on 127.0.0.1 with the project's own static handler, and fetch every route a client would.

The dataset is the small records of api_records.py beside the fixture dataset (tests/fixtures/dataset), and again
beside the real data/errors (a data test), written as YAML into a temporary data folder and loaded through the same
pipeline as a build, so every served record can be compared with the YAML it came from.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import shutil
import threading
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest
import re2
from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator, validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from api_records import assert_holds, fixture_data
from generator.api.export import write_api
from generator.records.model import Record
from generator.checks.pipeline import Checked, check
from generator.site.serve import _Handler
from generator.yamlout import dump_record

ROOT = Path(__file__).resolve().parents[1]


class _QuietHandler(_Handler):
    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve `folder` with errdex's static handler on a free localhost port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def get(url: str) -> tuple[bytes, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200, url
        return response.read(), response.headers.get_content_type()


def get_json(url: str) -> Any:
    body, kind = get(url)
    assert kind == "application/json", url
    return json.loads(body)


@pytest.fixture(scope="module", params=["fixtures", pytest.param("repository", marks=pytest.mark.data)])
def data_dir(request, tmp_path_factory) -> Path:
    """The small records as YAML files, beside the fixture dataset (the quick loop) or a snapshot of the repository's
    data/errors (records are added in parallel; `make test-data`)."""
    data = tmp_path_factory.mktemp("data") / "errors"
    shutil.copytree(ROOT / ("tests/fixtures/dataset" if request.param == "fixtures" else "data/errors"), data)
    for record in fixture_data():
        path = data / f"{record['id']}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_record(record), encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def dataset(data_dir: Path) -> Checked:
    result = check([data_dir], data_dir)
    assert not result.failed, [f for f in result.findings if f.severity == "error"]
    assert {r["id"] for r in fixture_data()} <= {r.id for r in result.records}
    return result


@pytest.fixture(scope="module")
def base(dataset: Checked, tmp_path_factory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("site")
    write_api(dataset.records, site / "api")
    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def manifest(base: str) -> dict[str, Any]:
    return get_json(f"{base}/api/manifest.json")


@pytest.fixture(scope="module")
def schema(base: str) -> dict[str, Any]:
    return get_json(f"{base}/api/schema.json")


@pytest.fixture(scope="module")
def openapi(base: str) -> dict[str, Any]:
    return get_json(f"{base}/api/openapi.json")


def test_every_file_in_the_manifest_is_served_as_listed(base, manifest, dataset):
    assert manifest["records"] == len(dataset.records)
    expected = {"errors.json", "errors.ndjson", "match.json", "openapi.json", "schema.json", "stats.json"}
    expected |= {f"errors/{n}.json" for r in dataset.records for n in [r.id, *r.aliases]}
    assert set(manifest["files"]) == expected
    for path, entry in manifest["files"].items():
        body, kind = get(f"{base}/api/{path}")
        assert kind == ("application/x-ndjson" if path.endswith(".ndjson") else "application/json"), path
        assert len(body) == entry["size"] and hashlib.sha256(body).hexdigest() == entry["sha256"], path


def test_a_missing_record_is_a_404(base):
    with pytest.raises(urllib.error.HTTPError) as caught:
        get(f"{base}/api/errors/no/such-record.json")
    assert caught.value.code == 404


def test_record_documents_validate_and_equal_their_yaml(base, dataset, schema):
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for raw, record in zip(sorted(dataset.raws, key=lambda r: r.data["id"]), dataset.records):
        assert raw.data["id"] == record.id
        doc = get_json(f"{base}/api/errors/{record.id}.json")
        errors = [e.message for e in validator.iter_errors(doc["record"])]
        assert errors == [], record.id
        assert Record.model_validate(doc["record"]) == record
        assert doc["record"] == Record.model_validate(raw.data).model_dump(mode="json", exclude_none=True)
        assert_holds(doc["record"], raw.data, record.id)  # every value of the YAML, as written
        assert doc["links"] == {
            "html": f"/errors/{record.id}/",
            "html_zh": f"/zh/errors/{record.id}/",
            "json": f"/api/errors/{record.id}.json",
            **({"source": record.permalink()} if record.source else {}),
        }
        if record.superseded_by:
            successor = doc["successor"]["id"]
            assert record.superseded_by == successor or record.superseded_by in get_json(f"{base}/api/errors/{successor}.json")["record"]["aliases"]
        else:
            assert "successor" not in doc


def test_aliases_serve_the_canonical_record(base, dataset):
    aliases = [(alias, r) for r in dataset.records for alias in r.aliases]
    assert ("0123456789abcdef", "zz-fixture/live-thing") in [(a, r.id) for a, r in aliases]
    for alias, record in aliases:
        body, _ = get(f"{base}/api/errors/{alias}.json")
        assert body == get(f"{base}/api/errors/{record.id}.json")[0]
        doc = json.loads(body)
        assert doc["record"]["id"] == record.id and doc["links"]["json"] == f"/api/errors/{record.id}.json"


def test_index_agrees_with_the_records(base, dataset):
    index = get_json(f"{base}/api/errors.json")
    assert index["count"] == len(dataset.records) == len(index["errors"])
    for entry, record in zip(index["errors"], dataset.records):
        assert entry["id"] == record.id
        assert entry["aliases"] == record.aliases
        assert (entry["message"], entry.get("message_zh")) == (record.error.message, record.error.message_zh)
        assert (entry["repo"], entry["category"], entry["severity"]) == (record.repo, record.category, record.error.severity)
        assert entry["tags"] == record.tags and entry["last_updated"] == record.provenance.last_updated
        assert entry["links"]["json"] == f"/api/errors/{record.id}.json"
        get(f"{base}{entry['links']['json']}")


def test_match_patterns_find_their_own_examples(base, dataset):
    match = get_json(f"{base}/api/match.json")
    assert [p["id"] for p in match["patterns"]] == [r.id for r in dataset.records]
    for pattern, record in zip(match["patterns"], dataset.records):
        assert pattern["regex"] == record.error.regex and pattern["html"] == f"/errors/{record.id}/"
        one_line = " ".join(record.error.message.split())  # as on the page: a multi-line message on one line
        assert pattern["title"] == (record.title or f'What causes "{one_line}" in {record.repo}?')  # its own title first
        assert pattern.get("exception_class") == record.error.exception_class
        compiled = re2.compile(pattern["regex"])
        assert all(compiled.search(e.text) for e in record.error.examples), record.id
        assert not any(compiled.search(text) for text in record.error.counter_examples), record.id


def test_stats_agree_with_the_records(base, dataset):
    stats = get_json(f"{base}/api/stats.json")
    records = dataset.records
    assert stats["records"] == len(records) and stats["aliases"] == sum(len(r.aliases) for r in records)
    assert stats["by_repo"] == dict(Counter(r.repo for r in records))
    assert stats["by_category"] == dict(Counter(r.category for r in records))
    assert {k: v for k, v in stats["by_severity"].items() if v} == dict(Counter(r.error.severity for r in records))
    assert {k: v for k, v in stats["by_verification_tier"].items() if v} == dict(Counter(r.provenance.verification_tier for r in records))
    t = stats["translation"]
    assert t["records_complete"] + t["records_partial"] + t["records_untranslated"] == len(records)
    assert t["records_untranslated"] >= 1 and t["records_partial"] >= 1  # zz-fixture-flat, zz-fixture/retired-thing
    assert 0 < t["fields_translated"] < t["fields"] and t["coverage"] == round(t["fields_translated"] / t["fields"], 4)


def test_ndjson_holds_every_record_document(base, dataset, manifest):
    body, _ = get(f"{base}/api/errors.ndjson")
    lines = body.decode("utf-8").splitlines()
    assert len(lines) == len(dataset.records)
    for line, record in zip(lines, dataset.records):
        assert json.loads(line) == get_json(f"{base}/api/errors/{record.id}.json")
    assert manifest["dataset_version"] == hashlib.sha256(body).hexdigest()[:16]


def test_openapi_is_valid_and_every_route_exists(base, openapi, dataset):
    validate(openapi, base_uri=f"{base}/api/openapi.json", cls=OpenAPIV31SpecValidator)  # fetches schema.json over HTTP
    assert openapi["servers"] == [{"url": "/api", "description": "The site this document was built for."}]
    names = [n for r in dataset.records for n in [r.id, *r.aliases]]
    templates = {}
    for path, item in openapi["paths"].items():
        params = item["get"].get("parameters", [])
        url = path
        for p in params:
            url = url.replace(f"{{{p['name']}}}", p["example"])
        assert "{" not in url, path
        get(f"{base}/api{url}")
        if params:
            templates[len(params)] = path
    for name in names:  # every id and alias fits one listed template
        parts = name.split("/")
        path = templates[len(parts)]
        for i, part in enumerate(parts, 1):
            path = path.replace(f"{{part{i}}}", part)
        assert path == f"/errors/{name}.json"


def _response_validators(openapi: dict, schema: dict, base: str) -> dict[str, tuple[Draft202012Validator, dict]]:
    """Route -> a validator for its JSON response schema, resolving `schema.json` and `#/components/...`."""
    spec_uri = f"{base}/api/openapi.json"
    registry = Registry().with_resources(
        [(spec_uri, Resource.from_contents(openapi, default_specification=DRAFT202012)),
         (f"{base}/api/schema.json", Resource.from_contents(schema)), (schema["$id"], Resource.from_contents(schema))]
    )
    out = {}
    for path, item in openapi["paths"].items():
        for media_type, media in item["get"]["responses"]["200"]["content"].items():
            target = media.get("x-item-schema", media["schema"]) if media_type == "application/x-ndjson" else media["schema"]
            wrapped = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{base}/api/response{len(out)}.json", "$ref": f"{spec_uri}{target['$ref']}"} if "$ref" in target else target
            out[path] = (Draft202012Validator(wrapped, registry=registry), media)
    return out


def test_every_response_and_example_fits_its_openapi_schema(base, openapi, schema):
    for path, (validator, media) in _response_validators(openapi, schema, base).items():
        params = openapi["paths"][path]["get"].get("parameters", [])
        url = path
        for p in params:
            url = url.replace(f"{{{p['name']}}}", p["example"])
        body, _ = get(f"{base}/api{url}")
        values = [json.loads(line) for line in body.splitlines()] if path.endswith(".ndjson") else [json.loads(body)]
        if not path.endswith(".ndjson"):
            values += [example["value"] for example in media.get("examples", {}).values()]
        for value in values:
            errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(value)]
            assert errors == [], path


# The whole site, once the site engineer's `errdex build` exists: the API inside it must be the same files.

site_missing = not (ROOT / "generator/site/build.py").is_file()


@pytest.fixture(scope="module")
def built_site(tmp_path_factory, data_dir: Path) -> Path:
    from generator.cli import main

    out = tmp_path_factory.mktemp("build") / "site"
    assert main(["build", "--out", str(out), "--data", str(data_dir), "--quiet"]) == 0
    return out


@pytest.mark.skipif(site_missing, reason="generator/site/build.py (errdex build) does not exist yet")
def test_built_site_serves_the_same_api(built_site, dataset):
    from generator.api.export import api_files

    result = dataset
    files = api_files(result.records)
    with serve(built_site) as url:
        manifest = get_json(f"{url}/api/manifest.json")
        assert set(manifest["files"]) | {"manifest.json"} == set(files)
        for path, body in files.items():
            assert get(f"{url}/api/{path}")[0] == body, path
        spec = get_json(f"{url}/api/openapi.json")
        validate(spec, base_uri=f"{url}/api/openapi.json", cls=OpenAPIV31SpecValidator)
        for record in result.records:  # the page each record document links to exists too
            doc = get_json(f"{url}/api/errors/{record.id}.json")
            assert get(f"{url}{doc['links']['html']}")[1] == "text/html"
            assert get(f"{url}{doc['links']['html_zh']}")[1] == "text/html"
