"""`errdex mcp`: the server runs as a subprocess and is driven with the SDK's own stdio client.

The API is built here with generator.api.export.api_files from tests/fixtures/dataset, so every answer can be
checked against the very files the site publishes; explain_site and diff_errors read the small catalog in
tests/fixtures/catalog (written in the agreed catalog format).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import http.server
import json
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from generator.api.export import api_files, write_api
from generator.match.engine import Matcher
from generator.match.index import patterns_from_index
from generator.catalog.reader import CatalogQueryError, check_path, load_catalog
from generator.checks.pipeline import check

ROOT = Path(__file__).parent.parent
DATASET = ROOT / "tests" / "fixtures" / "dataset"
CATALOG = ROOT / "tests" / "fixtures" / "catalog"
TIMEOUT = 120  # the machine may be busy: starting Python and the SDK can take seconds
TOOLS = {"match_log", "get_error", "search", "explain_site", "diff_errors", "list_projects", "report_outcome"}
KV = "demo/kv-cache-out-of-memory"
KV_ENTRY = "demo/93b6920f7d0b9a6c"  # the catalog's entry for the same message
QUEUE_ENTRY = "demo/6c82ce52ae657a8f"  # added in 0.2.0
TOKENIZER_ENTRY = "demo/ed3ec881d68f6430"  # removed in 0.3.0


class Server:
    """`errdex mcp ARGS` in a subprocess, with an SDK ClientSession kept open on a private event loop."""

    def __init__(self, *args: str):
        from mcp.client.stdio import StdioServerParameters

        self.params = StdioServerParameters(command=sys.executable, args=["-m", "generator", "mcp", *args], cwd=str(ROOT))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready: concurrent.futures.Future = concurrent.futures.Future()
        self.main = asyncio.run_coroutine_threadsafe(self._main(), self.loop)
        self.session = self.ready.result(timeout=TIMEOUT)

    async def _main(self) -> None:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import stdio_client

        try:
            async with stdio_client(self.params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    self.stop = asyncio.Event()
                    self.ready.set_result(session)
                    await self.stop.wait()
        except BaseException as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            raise

    def run(self, coro) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=TIMEOUT)

    def call(self, name: str, **arguments: Any):
        return self.run(self.session.call_tool(name, arguments))

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = self.call(name, **arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def error(self, name: str, **arguments: Any) -> str:
        result = self.call(name, **arguments)
        assert result.is_error, f"{name} accepted {arguments!r}"
        return result.content[0].text

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.main.result(timeout=TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=TIMEOUT)


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    result = check([DATASET], DATASET)
    assert not result.failed
    return api_files(result.records)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, files: dict[str, bytes]) -> Path:
    """A folder with the fixture dataset's API at api/ (what a built site holds)."""
    root = tmp_path_factory.mktemp("mcp-site")
    result = check([DATASET], DATASET)
    write_api(result.records, root / "api")
    assert (root / "api" / "errors.ndjson").read_bytes() == files["errors.ndjson"]
    return root


@pytest.fixture(scope="module")
def server(site: Path):
    s = Server("--api", str(site / "api"), "--catalog", str(CATALOG))
    yield s
    s.close()


def doc(files: dict[str, bytes], name: str) -> dict[str, Any]:
    return json.loads(files[f"errors/{name}.json"])


# -- the surface -----------------------------------------------------------------------------------------------
def test_tools_have_input_schemas(server: Server) -> None:
    listed = {t.name: t for t in server.run(server.session.list_tools()).tools}
    assert set(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations.read_only_hint is True
    required = {name: set(t.input_schema.get("required", [])) for name, t in listed.items()}
    assert required == {
        "match_log": {"text"},
        "get_error": {"id"},
        "search": {"query"},
        "explain_site": {"package", "version", "path", "line"},
        "diff_errors": {"package", "from_version", "to_version"},
        "list_projects": set(),
        "report_outcome": {"id", "fix", "outcome"},
    }
    assert listed["get_error"].input_schema["properties"]["lang"]["enum"] == ["en", "zh"]
    assert listed["report_outcome"].input_schema["properties"]["outcome"]["enum"] == ["worked", "partly_worked", "did_not_work"]


def test_diagnose_prompt(server: Server) -> None:
    (prompt,) = server.run(server.session.list_prompts()).prompts
    assert prompt.name == "diagnose" and [a.name for a in prompt.arguments] == ["log", "lang"]
    got = server.run(server.session.get_prompt("diagnose", {"log": "ValueError: boom", "lang": "zh"}))
    text = got.messages[0].content.text
    assert "match_log" in text and "get_error" in text and text.endswith("ValueError: boom")


def test_get_error_is_the_api_document(server: Server, files: dict[str, bytes]) -> None:
    names = [path[len("errors/") : -len(".json")] for path in files if path.startswith("errors/")]
    assert len(names) == 6  # four records, two aliases
    for name in names:
        result = server.call("get_error", id=name)
        assert not result.is_error
        assert result.structured_content == doc(files, name)
    zh = server.call("get_error", id="demo-legacy-kv-oom", lang="zh")
    text = zh.content[0].text
    assert text.startswith(f"{KV} (alias demo-legacy-kv-oom)")
    assert doc(files, KV)["record"]["error"]["message_zh"] in text and "/zh/errors/demo/kv-cache-out-of-memory/" in text
    assert zh.structured_content == doc(files, KV)


def test_records_are_resources(server: Server, files: dict[str, bytes]) -> None:
    templates = server.run(server.session.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["errdex://errors/{+id}"]
    for name in (KV, "demo-legacy-kv-oom"):
        contents = server.run(server.session.read_resource(f"errdex://errors/{name}")).contents
        assert contents[0].mime_type == "application/json"
        assert contents[0].text.encode("utf-8") == files[f"errors/{name}.json"]
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError, match="no record is named"):
        server.run(server.session.read_resource("errdex://errors/demo/no-such-thing"))


def test_match_log_ranks_like_the_matcher(server: Server, files: dict[str, bytes]) -> None:
    matcher = Matcher(patterns_from_index(json.loads(files["match.json"])))
    for path, body in files.items():
        if not path.startswith("errors/") or path.count("/") < 2:
            continue
        record = json.loads(body)["record"]
        for example in record["error"]["examples"]:
            example = example["text"] if isinstance(example, dict) else example  # examples carry their provenance
            log = f"INFO starting\nTraceback (most recent call last):\n  File \"x.py\", line 3\n{example}\nINFO done\n"
            got = server.ok("match_log", text=log, limit=50)
            expected = matcher.rank(matcher.scan_text(log))
            records = [r for r in got["results"] if r["type"] == "record"]
            assert [r["id"] for r in records] == [r.pattern.id for r in expected]
            assert record["id"] in [r["id"] for r in records]
            for mine, theirs in zip(records, expected):
                assert (mine["line"], mine["span"], mine["values"]) == (theirs.first.line, list(theirs.first.span), list(theirs.first.groups))
                assert mine["api"] == f"/api/errors/{theirs.pattern.id}.json"


def test_match_log_joins_records_and_catalog(server: Server) -> None:
    log = (
        "Traceback (most recent call last):\n"
        "servekit.CacheOOMError: Cannot allocate 512 KV cache blocks: out of GPU memory\n"
        "RuntimeError: Scheduler queue is full (17 waiting)\n"
    )
    got = server.ok("match_log", text=log)
    first, second = got["results"]
    assert first["id"] == KV and first["type"] == "record" and first["values"] == ["512"]
    assert first["match"] == "Cannot allocate 512 KV cache blocks: out of GPU memory"
    assert first["raise_site"]["path"] == "servekit/cache/allocator.py"
    assert [c["id"] for c in first["catalog"]] == [KV_ENTRY]  # the same text: the entry adds its sites and releases
    assert first["catalog"][0]["releases"] == [["0.1.0", "0.3.0"]]
    assert second["id"] == QUEUE_ENTRY and second["type"] == "catalog" and second["values"] == ["17"]
    assert second["catalog"]["sites"][0]["path"] == "servekit/sched.py" and second["catalog"]["first"] == "0.2.0"
    # what the code says around it: the entry's guide, in its card, labelled as read from the code
    assert second["card"]["from_code"]["guard"] == {"kind": "if", "source": "len(self.waiting) >= self.max_waiting"}
    assert second["card"]["from_code"]["options"][0]["flag"] == "--max-waiting" and "fix" not in second["card"]
    assert second["card"]["url"].endswith("/catalog/demo/messages/6c82ce52ae657a8f.html")  # its own page on the site
    # The log's release: an entry that release does not have drops, and says why.
    old = server.ok("match_log", text=log, versions={"servekit": "0.1.0"})
    queue = next(r for r in old["results"] if r["id"] == QUEUE_ENTRY)
    assert queue["score"] == second["score"] - 30 and "-30: demo 0.1.0 does not have this message (added in 0.2.0)" in queue["why"]
    kv = next(r for r in old["results"] if r["id"] == KV)
    assert kv["catalog"][0]["sites"] == [{"from": "0.1.0", "to": "0.2.0", "path": "servekit/cache/allocator.py", "line": 104,
                                          "statement": 'raise CacheOOMError(f"Cannot allocate {n} KV cache blocks: out of GPU memory")'}]
    # Paging: one at a time, with a cursor.
    page1 = server.ok("match_log", text=log, limit=1)
    page2 = server.ok("match_log", text=log, limit=1, cursor=page1["next_cursor"])
    assert [page1["results"][0]["id"], page2["results"][0]["id"]] == [KV, QUEUE_ENTRY]
    assert page1["found"] == 2 and page2["next_cursor"] is None
    assert server.ok("match_log", text="nothing to see here\n")["results"] == []
    # On a long line each result shows an excerpt around its own match; the join goes by column.
    long = "x" * 3000 + " servekit.CacheOOMError: Cannot allocate 512 KV cache blocks: out of GPU memory " + "y" * 3000 + "\n"
    (only,) = server.ok("match_log", text=long)["results"]
    assert only["id"] == KV and only["column"] == 3026 and [c["id"] for c in only["catalog"]] == [KV_ENTRY]


def test_match_log_answers_version_drift_from_the_symbol_index(server: Server) -> None:
    got = server.ok("match_log", text="TypeError: KVCache.allocate() got an unexpected keyword argument 'priority'\n")
    (drift,) = got["drift"]
    (answer,) = drift["candidates"]
    assert drift["shape"] == "kwarg" and answer["symbol"] == "servekit.cache.KVCache.allocate(priority=...)"
    assert answer["verdict"] == "added" and answer["install"] == "pip install 'servekit>=0.2.0'"
    assert answer["has"] == [{"from": "0.2.0", "to": "0.3.0"}] and "0.1.0, the release searched before it, lacks it" in answer["text"]["en"]
    old = server.ok("match_log", text="ImportError: cannot import name 'Scheduler' from 'servekit'\n", versions={"demo": "0.1.0"})
    assert old["drift"][0]["candidates"][0]["installed"] == {"release": "0.1.0", "has": False}
    assert server.ok("match_log", text="nothing to see here\n")["drift"] == []


def test_concurrent_calls_get_their_own_answers(server: Server) -> None:
    logs = [("noise\n" * n) + f"RuntimeError: Scheduler queue is full ({n} waiting)\n" for n in range(1, 9)]

    async def together():
        return await asyncio.gather(*(server.session.call_tool("match_log", {"text": log}) for log in logs))

    for n, result in enumerate(server.run(together()), 1):
        got = result.structured_content
        assert got["lines"] == n + 1 and got["results"][0]["values"] == [str(n)] and got["results"][0]["line"] == n + 1


def test_search(server: Server) -> None:
    en = server.ok("search", query="GPU memory blocks")
    assert [r["id"] for r in en["results"]] == [KV]
    assert en["results"][0]["url"].endswith("/errors/demo/kv-cache-out-of-memory/")
    zh = server.ok("search", query="显存不足", lang="zh")
    assert [r["id"] for r in zh["results"]] == [KV] and zh["results"][0]["url"].endswith("/zh/errors/demo/kv-cache-out-of-memory/")
    assert server.ok("search", query="显存不足", lang="en")["results"] == []
    loose = server.ok("search", query="how do I fix the KV cache blocks running out")
    assert loose["all_terms"] is False and loose["matched_terms"] < len(loose["terms"]) and loose["results"][0]["id"] == KV
    assert server.ok("search", query="GPU memory blocks")["all_terms"] is True
    everything = server.ok("search", query="the", limit=50)
    assert everything["total"] >= 2
    again = server.ok("search", query="the", limit=50)
    assert everything == again  # deterministic
    scores = [r["score"] for r in everything["results"]]
    assert scores == sorted(scores, reverse=True)
    first = server.ok("search", query="the", limit=1)
    rest = server.ok("search", query="the", limit=50, cursor=first["next_cursor"])
    assert [r["id"] for r in first["results"] + rest["results"]] == [r["id"] for r in everything["results"]]


def test_explain_site(server: Server) -> None:
    got = server.ok("explain_site", package="demo", version="0.2.0", path="servekit/cache/allocator.py", line=104)
    assert [e["id"] for e in got["exact"]] == [KV_ENTRY]
    assert got["exact"][0]["records"] == [KV]  # the record for the same message
    assert [e["id"] for e in got["nearby"]] == ["demo/c9fb72e4f5596537"] and got["nearby"][0]["distance"] == 6
    # The installed file's path and the package name work too; in 0.3.0 the message moved to another file.
    moved = server.ok("explain_site", package="servekit", version="0.3.0", path="/opt/venv/lib/python3.11/site-packages/servekit/v2/cache.py", line=57)
    assert moved["path"] == "servekit/v2/cache.py" and [e["id"] for e in moved["exact"]] == [KV_ENTRY]
    gone = server.ok("explain_site", package="demo", version="0.3.0", path="servekit/tok.py", line=12)
    assert gone["exact"] == [] and "0.1.0..0.2.0" in gone["note"]


def test_diff_errors(server: Server) -> None:
    got = server.ok("diff_errors", package="demo", from_version="0.1.0", to_version="0.3.0")
    assert got["counts"] == {"added": 1, "removed": 1, "reworded": 0, "moved": 1}
    assert [(c["change"], c["id"]) for c in got["changes"]] == [("added", QUEUE_ENTRY), ("removed", TOKENIZER_ENTRY), ("moved", KV_ENTRY)]
    moved = got["changes"][2]
    assert moved["sites_before"][0]["path"] == "servekit/cache/allocator.py" and moved["sites"][0]["path"] == "servekit/v2/cache.py"
    back = server.ok("diff_errors", package="demo", from_version="0.3.0", to_version="0.1.0")
    assert back["counts"] == {"added": 1, "removed": 1, "reworded": 0, "moved": 1}
    assert server.ok("diff_errors", package="demo", from_version="0.2.0", to_version="0.2.0")["changes"] == []


def test_list_projects(server: Server, files: dict[str, bytes]) -> None:
    got = server.ok("list_projects")
    assert got["records"] == 4 and got["catalog_entries"] == 4
    assert got["dataset_version"] == json.loads(files["manifest.json"])["dataset_version"]
    assert got["projects"] == [{
        "project": "demo",
        "records": 4,
        "repos": ["example-org/servekit"],
        "catalog": {"project": "demo", "entries": 4, "releases": 3, "first": "0.1.0", "last": "0.3.0", "package": "servekit"},
    }]


def test_report_outcome_is_a_prefilled_issue_link(server: Server) -> None:
    got = server.ok("report_outcome", id="demo-legacy-kv-oom", fix="Lowered max_model_len to 8192", outcome="worked",
                    url="https://example.org/issues/7")
    parts = urlsplit(got["issue_url"])
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://github.com/errdex/errdex/issues/new"  # mkdocs.yml repo_url
    query = parse_qs(parts.query)
    assert query["title"] == [f"[{KV}] outcome: worked"]
    body = query["body"][0]
    assert f"Record: {KV}" in body and "Lowered max_model_len to 8192" in body and "Evidence: https://example.org/issues/7" in body
    assert "Nothing was written" in got["note"] and "shortened" not in got
    long = server.ok("report_outcome", id=KV, fix="降低 max_model_len 之后显存够用了。" * 80, outcome="partly_worked")
    assert len(long["issue_url"]) <= 8000 and "shortened" in long and long["body"].count("降低") < 80


# -- bad input: a clear tool error, and the server keeps answering -------------------------------------------------
def test_bad_input_is_a_tool_error(server: Server) -> None:
    assert "no record is named 'demo/nope'" in server.error("get_error", id="demo/nope")
    assert "did you mean demo/request-timeout" in server.error("get_error", id="demo/request-timeut")
    assert "is not a record id" in server.error("get_error", id="../../etc/passwd")
    assert "is a catalog entry, not a record" in server.error("get_error", id=QUEUE_ENTRY)
    assert "lang" in server.error("get_error", id=KV, lang="fr")
    big = server.error("match_log", text="x" * (10 << 20))
    assert "10,485,760 bytes" in big and "at most 1,048,576" in big
    assert "text must be" in server.error("match_log", text="   ")
    assert "versions" in server.error("match_log", text="x", versions={"demo": "0.1;rm -rf"})
    assert "not a release version" in server.error("explain_site", package="demo", version="1..2/3", path="a.py", line=1)
    assert "not a harvested release of demo" in server.error("explain_site", package="demo", version="9.9.9", path="a.py", line=1)
    assert "'..'" in server.error("explain_site", package="demo", version="0.1.0", path="servekit/../../etc/passwd", line=1)
    assert "absolute" in server.error("explain_site", package="demo", version="0.1.0", path="/etc/passwd", line=1)
    assert "line" in server.error("explain_site", package="demo", version="0.1.0", path="a.py", line=0)
    assert "no project 'nope'" in server.error("diff_errors", package="nope", from_version="1", to_version="2")
    assert "limit" in server.error("search", query="memory", limit=0)
    assert "cursor" in server.error("search", query="memory", cursor="abc")
    assert "query" in server.error("search", query="x" * 501)
    assert "query holds no words" in server.error("search", query="!!! ???")
    assert "outcome" in server.error("report_outcome", id=KV, fix="x", outcome="great")
    assert "url must be" in server.error("report_outcome", id=KV, fix="x", outcome="worked", url="javascript:alert(1)")
    assert "fix must" in server.error("report_outcome", id=KV, fix="x" * 2001, outcome="worked")
    assert server.call("no_such_tool").is_error
    assert server.ok("list_projects")["records"] == 4  # still serving


# -- the other sources ---------------------------------------------------------------------------------------
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_published_api_is_fetched_once_and_cached(site: Path, files: dict[str, bytes], tmp_path: Path) -> None:
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}/api/"
    cache = tmp_path / "cache"
    try:
        s = Server("--api", url, "--cache-dir", str(cache), "--catalog", str(CATALOG))
        try:
            assert s.ok("get_error", id="demo-timeout-legacy") == doc(files, "demo-timeout-legacy")
            assert s.ok("search", query="GPU memory")["results"][0]["url"] == f"http://127.0.0.1:{httpd.server_port}/errors/{KV}/"
        finally:
            s.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    version = json.loads(files["manifest.json"])["dataset_version"]
    cached = list(cache.glob(f"api/*/{version}/*"))
    assert sorted(p.name for p in cached) == ["errors.json", "errors.ndjson", "manifest.json", "match.json"]
    # The site is gone: the server starts from the cache.
    s = Server("--api", url, "--cache-dir", str(cache), "--catalog", str(CATALOG))
    try:
        assert s.ok("get_error", id=KV) == doc(files, KV)
    finally:
        s.close()


def test_records_folder_source(files: dict[str, bytes]) -> None:
    s = Server("--data", str(DATASET), "--catalog", str(CATALOG))
    try:
        assert s.ok("get_error", id=KV) == doc(files, KV)
        assert s.ok("list_projects")["dataset_version"] == json.loads(files["manifest.json"])["dataset_version"]
    finally:
        s.close()


def test_unusable_source_exits_with_a_message(tmp_path: Path) -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "generator", "mcp", "--api", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "errdex mcp: cannot read" in done.stderr and done.stdout == ""


# -- the catalog reader ----------------------------------------------------------------------------------------
def test_catalog_reader_skips_malformed_lines(tmp_path: Path) -> None:
    for name in ("releases.json", "projects.yaml"):
        (tmp_path / name).write_bytes((CATALOG / name).read_bytes())
    good = (CATALOG / "demo.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "demo.jsonl").write_text("\n".join([good[0], "{not json", "[]", '{"id": "demo/x"}', *good[1:]]) + "\n", encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert len(catalog.projects["demo"].entries) == 4
    assert catalog.problem_count == 3 and catalog.problems[0].startswith("demo.jsonl:2: not JSON")
    assert load_catalog(tmp_path / "absent").projects == {}


def test_catalog_project_joins_records_by_repository(tmp_path: Path, files: dict[str, bytes]) -> None:
    """A catalog slug that differs from the records' folder (llama.cpp, llama-cpp) is listed with its records."""
    from generator.bundle.apidata import from_files
    from generator.mcp.tools import Knowledge, list_projects

    (tmp_path / "serve.kit.jsonl").write_text((CATALOG / "demo.jsonl").read_text(encoding="utf-8").replace('"project":"demo"', '"project":"serve.kit"'), encoding="utf-8")
    (tmp_path / "releases.json").write_text((CATALOG / "releases.json").read_text(encoding="utf-8").replace('"demo"', '"serve.kit"'), encoding="utf-8")
    (tmp_path / "projects.yaml").write_text("projects:\n  serve.kit:\n    repo: example-org/servekit\n", encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert catalog.problem_count == 0 and catalog.project("serve-kit").slug == "serve.kit"
    got = list_projects(Knowledge(from_files(files, "test"), catalog))
    assert [(p["project"], p["records"], p["catalog"]["project"]) for p in got["projects"]] == [("demo", 4, "serve.kit")]


def test_two_catalog_projects_from_one_repository(tmp_path: Path, files: dict[str, bytes]) -> None:
    """sgl-kernel comes from sglang's repository: each is listed as itself, and the repository names the project
    of its own name."""
    from generator.bundle.apidata import from_files
    from generator.mcp.tools import Knowledge, list_projects

    demo = (CATALOG / "demo.jsonl").read_text(encoding="utf-8")
    releases = json.loads((CATALOG / "releases.json").read_text(encoding="utf-8"))
    for slug in ("demo", "demo-kernel", "tools", "tools-ops"):
        (tmp_path / f"{slug}.jsonl").write_text(demo.replace('"project":"demo"', f'"project":"{slug}"').replace('"id":"demo/', f'"id":"{slug}/'), encoding="utf-8")
    (tmp_path / "releases.json").write_text(json.dumps({slug: releases["demo"] for slug in ("demo", "demo-kernel", "tools", "tools-ops")}), encoding="utf-8")
    config = "".join(f"  {slug}:\n    repo: example-org/{repo}\n    package: {slug}-py\n" for slug, repo in
                     [("demo", "servekit"), ("demo-kernel", "servekit"), ("tools", "tools"), ("tools-ops", "tools")])
    (tmp_path / "projects.yaml").write_text("projects:\n" + config, encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert catalog.problem_count == 0
    assert catalog.project("example-org/tools").slug == "tools" and catalog.project("tools-ops-py").slug == "tools-ops"
    got = list_projects(Knowledge(from_files(files, "test"), catalog))
    rows = [(p["project"], p["records"], p["catalog"]["project"]) for p in got["projects"]]
    assert rows == [("demo", 4, "demo"), ("demo-kernel", 0, "demo-kernel"), ("tools", 0, "tools"), ("tools-ops", 0, "tools-ops")]


def test_catalog_without_releases_orders_versions_by_number(tmp_path: Path) -> None:
    (tmp_path / "demo.jsonl").write_bytes((CATALOG / "demo.jsonl").read_bytes())
    project = load_catalog(tmp_path).projects["demo"]
    assert project.releases == ["0.1.0", "0.2.0", "0.3.0"] and len(project.entries) == 4


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("servekit/sched.py", "servekit/sched.py"),
        ("./servekit/sched.py", "servekit/sched.py"),
        ("/usr/lib/python3/dist-packages/servekit/sched.py", "servekit/sched.py"),
        ("servekit/../etc/passwd", None),
        ("/etc/passwd", None),
        ("servekit\\sched.py", None),
        ("a\x00b", None),
        ("", None),
        ("a/" * 300, None),
    ],
)
def test_check_path(path: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(CatalogQueryError):
            check_path(path)
    else:
        assert check_path(path) == expected


def test_docs_name_every_tool() -> None:
    """The MCP pages (both languages) and the README describe every tool the server has."""
    from generator.mcp.server import build_server  # noqa: F401 (the SDK is importable)

    for page in ("docs/en/mcp.md", "docs/zh/mcp.md", "README.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        missing = [name for name in sorted(TOOLS) if f"`{name}`" not in text]
        assert not missing, f"{page} does not describe {missing}"
    for config in ("mkdocs.yml", "mkdocs.zh.yml"):
        assert ": mcp.md" in (ROOT / config).read_text(encoding="utf-8")


def test_api_folder_is_checked_against_its_manifest(site: Path, tmp_path: Path, files: dict[str, bytes]) -> None:
    import shutil

    from generator.bundle.apidata import SourceError, from_folder

    assert from_folder(site).origin == f"the API folder {site / 'api'}/"  # the site's folder works too
    copy = tmp_path / "api"
    shutil.copytree(site / "api", copy)
    (copy / "match.json").write_bytes(files["match.json"].replace(b"Cannot allocate", b"Can not allocate"))
    with pytest.raises(SourceError, match="match.json does not match its sha256"):
        from_folder(copy)


# -- any input: a result or a ToolInputError, never anything else ----------------------------------------------------
@pytest.fixture(scope="module")
def knowledge(files: dict[str, bytes]):
    from generator.bundle.apidata import from_files
    from generator.mcp.tools import Knowledge

    return Knowledge(from_files(files, "test"), load_catalog(CATALOG), "https://github.com/errdex/errdex")


def _answers_or_refuses(call) -> None:
    from generator.mcp.tools import ToolInputError

    try:
        result = call()
    except ToolInputError as exc:
        assert str(exc)
    else:
        json.dumps(result)  # JSON-ready


def test_any_input_is_answered_or_refused(knowledge) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from generator.mcp import tools

    anything = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=300), st.lists(st.text(max_size=5), max_size=3),
                         st.dictionaries(st.text(max_size=10), st.text(max_size=10), max_size=3))

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(text=st.text(max_size=2000), query=anything, name=anything, version=anything, path=anything, line=anything,
           limit=anything, cursor=anything, lang=anything, versions=anything)
    def check(text, query, name, version, path, line, limit, cursor, lang, versions) -> None:
        _answers_or_refuses(lambda: tools.match_log(knowledge, text, versions, 5, None))
        _answers_or_refuses(lambda: tools.match_log(knowledge, "Cannot allocate 3 KV cache blocks: out of GPU memory", None, limit, cursor))
        _answers_or_refuses(lambda: tools.search(knowledge, query, lang, 5, cursor))
        _answers_or_refuses(lambda: tools.get_error(knowledge, name, lang))
        _answers_or_refuses(lambda: tools.explain_site(knowledge, name, version, path, line))
        _answers_or_refuses(lambda: tools.explain_site(knowledge, "demo", "0.2.0", path, 104))
        _answers_or_refuses(lambda: tools.diff_errors(knowledge, "demo", version, "0.3.0", 5, cursor))
        _answers_or_refuses(lambda: tools.report_outcome(knowledge, KV, query, "worked", path))

    check()


def test_match_log_keeps_the_matchers_reasons_as_data_in_step(knowledge, monkeypatch) -> None:
    """When the matcher gives its reasons as data too (`reasons`, beside `why`), match_log's own reasons go to both."""
    from generator.bundle import answers
    from generator.mcp import tools

    plain = answers.result_json

    def with_reasons(rank, r):
        item = plain(rank, r)
        item["reasons"] = [["same_line", 1] if w.startswith("on the same line") else ["other"] for w in item["why"]]
        return item

    monkeypatch.setattr(answers, "result_json", with_reasons)
    log = "RuntimeError: Scheduler queue is full (3 waiting)\n"
    (item,) = tools.match_log(knowledge, log, {"demo": "0.1.0"})["results"]
    assert item["reasons"][-1] == ["release_lacks", "demo", "0.1.0", -30] and len(item["reasons"]) == len(item["why"])


def test_another_projects_folder_is_not_taken_for_errdex(tmp_path: Path, monkeypatch) -> None:
    """Clients start the server anywhere: a mkdocs.yml or data/catalog of the folder it starts in is not errdex's."""
    from generator.mcp.main import load_knowledge

    (tmp_path / "mkdocs.yml").write_text("site_name: other\nrepo_url: https://github.com/someone/else\nsite_url: https://else.example/\n", encoding="utf-8")
    (tmp_path / "data" / "catalog").mkdir(parents=True)
    (tmp_path / "data" / "catalog" / "demo.jsonl").write_text((CATALOG / "demo.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    k = load_knowledge(data=DATASET)
    assert k.repo_url == "https://github.com/errdex/errdex" and k.api.site_url == "https://errdex.dev/"
    assert len(k.catalog.projects["demo"].entries) == 4  # the catalog beside the records (tests/fixtures/catalog), not ./data/catalog


def test_a_sites_own_address_finds_its_api(site: Path, files: dict[str, bytes], tmp_path: Path) -> None:
    from generator.bundle.apidata import SourceError, from_url

    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        root = f"http://127.0.0.1:{httpd.server_port}"
        data = from_url(root, tmp_path / "cache")
        assert data.origin == f"the API at {root}/api/" and data.documents[KV] == files[f"errors/{KV}.json"]
        with pytest.raises(SourceError, match="not an http"):
            from_url("file:///etc/passwd", tmp_path / "cache")
        with pytest.raises(SourceError, match="nothing from it is cached"):
            from_url(f"{root}/nowhere/", tmp_path / "cache")
    finally:
        httpd.shutdown()
        httpd.server_close()


# -- when the knowledge is read ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])  # the initialize handshake; server/discover (2026-07-28)
def test_knowledge_is_read_once_the_client_is_past_the_handshake(knowledge, mode: str) -> None:
    """The server answers the handshake without the knowledge, starts reading it in a thread of its own once the
    client is past it (no tool call needed), and a call made while it is read waits for that one read."""
    from mcp import Client

    from generator.mcp.server import build_server

    reads: list[str] = []
    release = threading.Event()

    def read():
        reads.append(threading.current_thread().name)
        assert release.wait(TIMEOUT)
        return knowledge

    async def session() -> dict[str, Any]:
        async with Client(build_server(read), mode=mode) as client:
            for _ in range(TIMEOUT * 100):
                if reads:
                    break
                await asyncio.sleep(0.01)
            assert reads == ["errdex-read"]  # begun after the handshake, before any call
            call = asyncio.ensure_future(client.call_tool("list_projects", {}))
            await asyncio.sleep(0.2)
            assert not call.done()  # waiting for the read under way, not reading again
            release.set()
            result = await call
            assert not result.is_error, result.content[0].text
            return result.structured_content

    projects = asyncio.run(session())
    assert reads == ["errdex-read"] and [p["project"] for p in projects["projects"]] == ["demo"]


def test_a_failed_read_is_the_first_calls_tool_error(knowledge) -> None:
    """If reading the knowledge in the background fails, the server still answers: the first call reads again and
    says what failed, as a tool error; a later call that reads successfully is answered. The background read is
    not tried again on every message."""
    from mcp import Client

    from generator.mcp.server import build_server

    reads: list[str] = []

    def read():
        reads.append(threading.current_thread().name)
        if len(reads) < 3:
            raise OSError("the bundle could not be read")
        return knowledge

    async def session() -> tuple[Any, Any]:
        async with Client(build_server(read)) as client:
            for _ in range(TIMEOUT * 100):
                if reads:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            return await client.call_tool("list_projects", {}), await client.call_tool("list_projects", {})

    failed, answered = asyncio.run(session())
    assert failed.is_error
    assert failed.content[0].text.endswith(": errdex could not read its knowledge: OSError: the bundle could not be read")
    assert not answered.is_error and reads[0] == "errdex-read" and len(reads) == 3
