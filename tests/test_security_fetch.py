"""Fetching a release artifact runs nothing from it, takes exactly the file the index lists (its sha256 checked
before the file is opened) and stores a bounded amount of it: `verify-sources --release` and `harvest` against a
package index served by a real HTTP server on 127.0.0.1 (Simple API JSON pages and files), with hostile artifacts."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import subprocess
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest
import yaml
from packaging.tags import sys_tags

from generator.verify import artifacts, packageindex
from generator.cli import main
from generator.harvest import fetch as harvest_fetch
from generator.harvest.config import parse_config
from generator.harvest.fetch import Cache, FetchError, choose_file, fetch_pypi, store_artifact
from generator.harvest.run import harvest, pypi_versions
from generator.yamlout import dump_record
from tests.test_verify import CODE, MINIMAL  # the snippet a record pins, and the record

PLATFORMS = ["manylinux_2_35_x86_64", "manylinux_2_34_x86_64", "manylinux_2_31_x86_64", "manylinux_2_28_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64", "any"]


# ---------------------------------------------------------------- a package index on 127.0.0.1

class Index:
    """Simple API JSON pages (PEP 691) and their files, served by a real threading HTTP server."""

    def __init__(self) -> None:
        self.projects: dict[str, list[dict]] = {}
        self.blobs: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}
        self.requests: list[str] = []
        self.url = ""

    def add(self, project: str, filename: str, data: bytes, *, listed_sha256: str | None = None, url: str | None = None,
            requires_python: str | None = None, yanked: bool = False) -> dict:
        """List `filename` on the project's page (with the sha256 of `data` unless told another) and serve `data`."""
        path = f"/files/{project}/{filename}"
        self.blobs[path] = data
        entry = {"filename": filename, "url": url or f"../../files/{project}/{filename}",
                 "hashes": {"sha256": listed_sha256 or hashlib.sha256(data).hexdigest()},
                 "requires-python": requires_python, "yanked": yanked, "size": len(data)}
        self.projects.setdefault(project, []).append(entry)
        return entry

    def handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                index.requests.append(self.path)
                name = self.path.removeprefix("/simple/").strip("/")
                if self.path.startswith("/simple/") and name in index.projects:
                    page = {"meta": {"api-version": "1.1"}, "name": name, "files": index.projects[name]}
                    self._send(200, json.dumps(page).encode(), "application/vnd.pypi.simple.v1+json")
                elif self.path in index.redirects:
                    self.send_response(302)
                    self.send_header("Location", index.redirects[self.path])
                    self.end_headers()
                elif self.path in index.blobs:
                    self._send(200, index.blobs[self.path], "application/octet-stream")
                else:
                    self._send(404, b"not found", "text/plain")

            def _send(self, code: int, body: bytes, kind: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


@pytest.fixture
def index(monkeypatch):
    served = Index()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), served.handler())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{server.server_port}/simple/"
    monkeypatch.setenv("ERRDEX_INDEX_URL", served.url)
    monkeypatch.setenv("PIP_INDEX_URL", served.url)  # a fetch through pip would reach this index too, not PyPI
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    yield served
    server.shutdown()
    server.server_close()


@pytest.fixture
def processes(monkeypatch) -> list:
    """Every process started while the test runs (fetching must start none: no pip, no build backend)."""
    started: list = []
    real = subprocess.Popen

    class Recorded(real):  # type: ignore[misc, valid-type]
        def __init__(self, args, *rest, **options) -> None:
            started.append(args)
            super().__init__(args, *rest, **options)

    monkeypatch.setattr(subprocess, "Popen", Recorded)
    return started


# ---------------------------------------------------------------- artifacts

def _tar(files: dict[str, bytes], top: str, links: dict[str, str] | None = None) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return raw.getvalue()


def _wheel(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return raw.getvalue()


def hostile_sdist(name: str, version: str, marker: Path) -> bytes:
    """An sdist whose build backend (in-tree, no build requirements) and setup.py write `marker` when run."""
    payload = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n".encode()
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    hooks = f"""
def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    folder = pathlib.Path(metadata_directory, {info!r})
    folder.mkdir()
    (folder / "METADATA").write_text("Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n")
    return {info!r}
""".encode()
    return _tar({
        "pyproject.toml": b'[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
        "backend.py": payload + hooks,
        "setup.py": payload,
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        "engine/cache.py": "\n".join(CODE).encode(),
        "vendor/native/src/model.cpp": b'void load() { throw std::runtime_error("failed to open the model file"); }\n',
    }, top=f"{name.replace('-', '_')}-{version}", links={"vendor/native/src/alias.cpp": "model.cpp"})


def _record(tmp_path: Path, release: dict) -> Path:
    data = yaml.safe_load(MINIMAL.read_text(encoding="utf-8"))
    data["source"] = {"repo": "example-org/engine", "path": "engine/cache.py", "line": 4, "start_line": 3, "end_line": 5,
                      "commit": "0" * 40, "snippet": "\n".join(CODE[2:5]) + "\n", "release": release}
    folder = tmp_path / "data" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "minimal.yaml").write_text(dump_record(data), encoding="utf-8")
    return tmp_path / "data"


def _verify(capsys, data: Path, *args: str) -> tuple[int, str]:
    code = main(["verify-sources", "--root", str(data), str(data), "--release", *args])
    return code, capsys.readouterr().out


def _project(slug: str, package: str, **settings) -> object:
    spec = {"repo": f"example-org/{slug}", "source": "pypi", "package": package, "languages": ["python"], "releases": ["1.0"], **settings}
    return parse_config({"projects": {slug: spec}})[slug]


def _cache_files(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


# ---------------------------------------------------------------- nothing from an artifact runs

def test_verify_sources_runs_nothing_from_an_sdist(tmp_path, capsys, index, processes) -> None:
    marker = tmp_path / "MARKER"
    sdist = hostile_sdist("hostile-engine", "1.0", marker)
    index.add("hostile-engine", "hostile_engine-1.0.tar.gz", sdist)
    release = {"version": "1.0", "package": "hostile-engine", "artifact": "hostile_engine-1.0.tar.gz", "sha256": hashlib.sha256(sdist).hexdigest()}
    data = _record(tmp_path, release)
    code, out = _verify(capsys, data, "--cache", str(tmp_path / "cache"))
    assert code == 0 and "1 snippets checked against their release artifacts" in out, out
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / release["artifact"]).write_bytes(sdist)  # offline, from a folder of saved artifacts
    code, out = _verify(capsys, data, "--find-links", str(saved), "--cache", str(tmp_path / "cache2"))
    assert code == 0 and "1 snippets checked" in out, out
    assert not marker.exists(), "the sdist's build backend ran"
    assert processes == []


def test_harvest_runs_nothing_from_an_sdist(tmp_path, index, processes) -> None:
    marker = tmp_path / "MARKER"
    for version in ("1.0", "1.1rc1"):
        index.add("hostile-native", f"hostile_native-{version}.tar.gz", hostile_sdist("hostile-native", version, marker))
    project = _project("native", "hostile-native", artifact="sdist", strip="vendor/native/", languages=["cpp"], include=["src/"])
    assert pypi_versions(project) == ["1.0"]  # final releases only
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    outcome = harvest({"native": project}, None, Cache(tmp_path / "cache"), {}, root=catalog, config_path=tmp_path / "none.yaml", log=lambda _: None)
    assert outcome.failures == []
    manifest = Cache(tmp_path / "cache").manifest("native", "1.0")
    assert list(manifest["files"]) == ["src/model.cpp"]  # a symbolic link is not a file to read
    assert manifest["artifact"] == "hostile_native-1.0.tar.gz"
    assert not marker.exists(), "the sdist's build backend ran"
    assert processes == []


# ---------------------------------------------------------------- the exact file, its sha256 checked before it is opened

def _opened(monkeypatch) -> list:
    """Every archive opened while the test runs."""
    seen: list = []
    real_zip, real_tar = zipfile.ZipFile, tarfile.open

    class Zip(real_zip):  # type: ignore[misc, valid-type]
        def __init__(self, file, *args, **kwargs) -> None:
            seen.append(file)
            super().__init__(file, *args, **kwargs)

    monkeypatch.setattr(zipfile, "ZipFile", Zip)
    monkeypatch.setattr(tarfile, "open", lambda *a, **k: seen.append(a or k) or real_tar(*a, **k))
    return seen


def test_harvest_refuses_a_file_whose_bytes_are_not_the_listed_ones(tmp_path, index, processes, monkeypatch) -> None:
    good = _wheel({"demo/core.py": b"raise ValueError('the listed file')\n"})
    swapped = _wheel({"demo/core.py": b"raise ValueError('another file')\n"})
    index.add("swapped", "swapped-1.0-py3-none-any.whl", swapped, listed_sha256=hashlib.sha256(good).hexdigest())
    project = _project("swapped", "swapped", include=["demo/"], pip_platforms=[])
    opened = _opened(monkeypatch)
    with pytest.raises(FetchError, match="swapped-1.0-py3-none-any.whl.*sha256"):
        fetch_pypi(project, "1.0", Cache(tmp_path / "cache"))
    assert opened == [] and processes == []
    assert _cache_files(tmp_path / "cache") == []  # no manifest, no blob, no file left


def test_verify_sources_refuses_a_file_whose_bytes_are_not_the_listed_ones(tmp_path, capsys, index, monkeypatch) -> None:
    good = _wheel({"engine/cache.py": "\n".join(CODE).encode()})
    swapped = _wheel({"engine/cache.py": b"raise ValueError('another file')\n"})
    sha = hashlib.sha256(good).hexdigest()
    index.add("engine", "engine-1.0-py3-none-any.whl", swapped, listed_sha256=sha)
    data = _record(tmp_path, {"version": "1.0", "package": "engine", "artifact": "engine-1.0-py3-none-any.whl", "sha256": sha})
    opened = _opened(monkeypatch)
    code, out = _verify(capsys, data, "--cache", str(tmp_path / "cache"))
    assert code == 1 and "error[SRC106]" in out and "refused unopened" in out, out
    assert opened == []
    assert _cache_files(tmp_path / "cache") == []


def test_a_record_naming_another_file_than_the_index_is_refused_before_any_download(tmp_path, capsys, index) -> None:
    wheel = _wheel({"engine/cache.py": "\n".join(CODE).encode()})
    index.add("engine", "engine-1.0-py3-none-any.whl", wheel)
    data = _record(tmp_path, {"version": "1.0", "package": "engine", "artifact": "engine-1.0-py3-none-any.whl", "sha256": "a" * 64})
    code, out = _verify(capsys, data, "--cache", str(tmp_path / "cache"))
    assert code == 1 and "error[SRC106]" in out and "the index lists" in out, out
    assert not any(r.startswith("/files/") for r in index.requests)
    data = _record(tmp_path, {"version": "1.1", "package": "engine", "artifact": "engine-1.0-py3-none-any.whl", "sha256": "a" * 64})
    code, out = _verify(capsys, data, "--cache", str(tmp_path / "cache"))
    assert code == 1 and "is not a file of engine==1.1" in out, out  # the artifact's name must be the release's
    code, out = _verify(capsys, _record(tmp_path, {"version": "1.0", "package": "engine", "artifact": "engine-1.0.tar.gz"}), "--cache", str(tmp_path / "c"))
    assert code == 1 and "lists no file engine-1.0.tar.gz" in out, out


def test_an_unreachable_index_is_a_fetch_finding_not_a_traceback(tmp_path, capsys, monkeypatch) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ERRDEX_INDEX_URL", f"http://127.0.0.1:{port}/simple/")
    data = _record(tmp_path, {"version": "1.0", "package": "engine", "artifact": "engine-1.0-py3-none-any.whl", "sha256": "a" * 64})
    code, out = _verify(capsys, data, "--cache", str(tmp_path / "cache"))
    assert code == 1 and "error[SRC105]" in out, out
    with pytest.raises(FetchError, match="cannot fetch"):
        pypi_versions(_project("engine", "engine"))

# ---------------------------------------------------------------- production fetches only https

def test_only_https_unless_the_index_is_explicitly_a_loopback_address(tmp_path, index, monkeypatch) -> None:
    wheel = _wheel({"demo/core.py": b"raise ValueError('x')\n"})
    project = _project("plain", "plain", include=["demo/"], pip_platforms=[])
    index.add("plain", "plain-1.0-py3-none-any.whl", wheel, url="http://example.org/plain-1.0-py3-none-any.whl")
    index.add("plain", "plain-1.1-py3-none-any.whl", wheel, url="file:///etc/passwd")
    index.add("plain", "plain-1.2-py3-none-any.whl", wheel)
    index.redirects["/files/plain/plain-1.2-py3-none-any.whl"] = "http://example.org/plain-1.2-py3-none-any.whl"
    for version in ("1.0", "1.1", "1.2"):
        with pytest.raises(FetchError, match="only https"):
            fetch_pypi(project, version, Cache(tmp_path / "cache"))
    monkeypatch.setenv("ERRDEX_INDEX_URL", "http://example.org/simple/")
    with pytest.raises(artifacts.ArtifactError, match="only https"):
        packageindex.index_files("plain")
    monkeypatch.delenv("ERRDEX_INDEX_URL")
    assert packageindex.index_url() == "https://pypi.org/simple/"
    with pytest.raises(artifacts.ArtifactError, match="only https"):
        packageindex.download(index.url + "../files/plain/plain-1.2-py3-none-any.whl", tmp_path / "x.whl", "0" * 64)


# ---------------------------------------------------------------- the store's budget per artifact

def test_a_zip_bomb_stops_at_the_budget_naming_the_artifact(tmp_path, index) -> None:
    size = 12 * 1024 * 1024  # under the per-file cap, so each member counts towards the artifact's budget
    count = harvest_fetch.MAX_ARTIFACT_BYTES // size + 2
    bomb = _wheel({f"demo/m{n}.py": b"\0" * size for n in range(count)})
    assert len(bomb) < harvest_fetch.MAX_ARTIFACT_BYTES // 100
    index.add("bomb", "bomb-1.0-py3-none-any.whl", bomb)
    project = _project("bomb", "bomb", include=["demo/"], pip_platforms=[])
    with pytest.raises(FetchError) as raised:
        fetch_pypi(project, "1.0", Cache(tmp_path / "cache"))
    assert "bomb-1.0-py3-none-any.whl" in str(raised.value) and str(harvest_fetch.MAX_ARTIFACT_BYTES) in str(raised.value)
    assert _cache_files(tmp_path / "cache") == []


def test_a_tar_bomb_stops_at_the_budget_naming_the_artifact(tmp_path, index) -> None:
    size = 12 * 1024 * 1024
    count = harvest_fetch.MAX_ARTIFACT_BYTES // size + 2
    bomb = _tar({f"src/m{n}.cpp": b"\0" * size for n in range(count)}, top="tarbomb-1.0")
    index.add("tarbomb", "tarbomb-1.0.tar.gz", bomb)
    project = _project("tarbomb", "tarbomb", artifact="sdist", languages=["cpp"], include=["src/"])
    with pytest.raises(FetchError, match=rf"tarbomb-1\.0\.tar\.gz.*{harvest_fetch.MAX_ARTIFACT_BYTES}"):
        fetch_pypi(project, "1.0", Cache(tmp_path / "cache"))
    assert _cache_files(tmp_path / "cache") == []


def test_a_member_larger_than_it_declares_is_refused(tmp_path) -> None:
    """A zip whose central directory declares a small size for a large member: the bounded read refuses it."""
    body = b"x = 1\n" * (1024 * 1024)
    raw = bytearray(_wheel({"demo/a.py": b"y = 2\n", "demo/liar.py": body}))
    central = raw.rindex(b"PK\x01\x02")  # the last entry of the central directory: liar.py
    raw[central + 24: central + 28] = (100).to_bytes(4, "little")  # its uncompressed size
    artifact = tmp_path / "liar-1.0-py3-none-any.whl"
    artifact.write_bytes(bytes(raw))
    project = _project("liar", "liar", include=["demo/"], pip_platforms=[])
    cache = Cache(tmp_path / "cache")
    with pytest.raises(FetchError, match="liar-1.0-py3-none-any.whl"):
        store_artifact(project, "1.0", artifact, cache)
    assert cache.manifest("liar", "1.0") is None


def test_an_artifact_with_too_many_members_is_refused_before_reading(tmp_path) -> None:
    artifact = tmp_path / "many-1.0-py3-none-any.whl"
    with zipfile.ZipFile(artifact, "w") as archive:
        for n in range(artifacts.MAX_MEMBERS + 1):
            archive.writestr(f"demo/{n}.py", b"")
    project = _project("many", "many", include=["demo/"], pip_platforms=[])
    refused = f"many-1.0-py3-none-any.whl has more than {artifacts.MAX_MEMBERS} members"
    with pytest.raises(FetchError, match=refused):
        store_artifact(project, "1.0", artifact, Cache(tmp_path / "cache"))
    raw = bytearray(artifact.read_bytes())
    end = raw.rindex(b"PK\x05\x06")
    raw[end + 8:end + 12] = (1).to_bytes(2, "little") * 2  # the end record now declares one entry: a lie
    artifact.write_bytes(bytes(raw))
    with pytest.raises(FetchError, match=refused):
        store_artifact(project, "1.0", artifact, Cache(tmp_path / "cache"))
    assert not (tmp_path / "cache").exists()


def test_reading_a_tar_stops_at_its_unpacked_cap(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(artifacts, "MAX_UNPACKED_BYTES", 1024 * 1024)
    artifact = tmp_path / "deep-1.0.tar.gz"
    artifact.write_bytes(_tar({"padding.bin": b"\0" * (4 * 1024 * 1024), "engine/cache.py": "\n".join(CODE).encode()}, top="deep-1.0"))
    with pytest.raises(artifacts.ArtifactError, match="deep-1.0.tar.gz unpacks to more than 1048576 bytes"):
        artifacts.read_member(artifact, "engine/cache.py")


# ---------------------------------------------------------------- the file pip would choose, without pip

WHEELS = [
    # (file name, requires-python, yanked)
    ("wheelpkg-1.8-py3-none-any.whl", None, False),
    ("wheelpkg-1.9-cp38-abi3-manylinux_2_28_x86_64.whl", None, True),
    ("wheelpkg-2.0-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", None, False),
    ("wheelpkg-2.0-cp38-abi3-manylinux_2_28_x86_64.whl", None, False),
    ("wheelpkg-2.0-cp38-abi3-macosx_11_0_arm64.whl", None, False),
    ("wheelpkg-2.0-cp311-cp311-manylinux_2_34_x86_64.whl", None, False),
    ("wheelpkg-2.0-py3-none-any.whl", None, False),
    ("wheelpkg-2.0.tar.gz", None, False),
    ("wheelpkg-2.1-cp312-cp312-manylinux1_x86_64.whl", ">=3.13", False),
    ("wheelpkg-2.1-1-cp312-cp312-manylinux2010_x86_64.whl", ">=3.8", False),
    ("wheelpkg-2.1-2-cp312-cp312-manylinux2010_x86_64.whl", ">=3.8", False),
    ("wheelpkg-2.2rc1-cp312-cp312-manylinux1_x86_64.whl", None, False),
    ("wheelpkg-2.3-cp312-cp312-win_amd64.whl", None, False),
    ("wheelpkg-2.3.tar.gz", None, False),
    ("wheelpkg-2.3.zip", None, False),
]


def _listed() -> list[packageindex.IndexFile]:
    return [packageindex.IndexFile(name, f"https://files.example.org/{name}", "0" * 64, requires, yanked) for name, requires, yanked in WHEELS]


@pytest.mark.parametrize(("settings", "version", "chosen"), [
    ({"pip_platforms": PLATFORMS}, "2.0", "wheelpkg-2.0-cp38-abi3-manylinux_2_28_x86_64.whl"),  # the platforms' order
    ({"pip_platforms": PLATFORMS, "pip_python": "3.11"}, "2.0", "wheelpkg-2.0-cp311-cp311-manylinux_2_34_x86_64.whl"),
    ({"pip_platforms": ["manylinux2014_x86_64"]}, "2.1", "wheelpkg-2.1-2-cp312-cp312-manylinux2010_x86_64.whl"),
    ({"pip_platforms": PLATFORMS}, "1.9", "wheelpkg-1.9-cp38-abi3-manylinux_2_28_x86_64.whl"),  # pinned: yanked as a last resort
    ({"pip_platforms": PLATFORMS}, "2.3", None),
    ({"artifact": "sdist"}, "2.3", "wheelpkg-2.3.tar.gz"),
    ({"artifact": "sdist"}, "2.1", None),
])
def test_the_file_chosen_is_the_one_pip_would_choose(settings, version, chosen) -> None:
    project = _project("wheelpkg", "wheelpkg", **settings)
    picked = choose_file(project, version, _listed())
    assert (picked.filename if picked else None) == chosen


def test_without_platforms_the_file_is_the_one_pip_would_choose_here() -> None:
    """No `pip_platforms`: this interpreter's own tags, as pip without --platform (its most preferred tag wins)."""
    here = next(iter(sys_tags()))
    names = ["wheelpkg-3.0-py3-none-any.whl", f"wheelpkg-3.0-{here}.whl", "wheelpkg-3.0-cp27-cp27m-win32.whl"]
    listed = [packageindex.IndexFile(name, f"https://files.example.org/{name}", "0" * 64) for name in names]
    project = _project("wheelpkg", "wheelpkg", pip_platforms=[])
    assert choose_file(project, "3.0", listed).filename == f"wheelpkg-3.0-{here}.whl"
    assert choose_file(project, "3.0", listed[:1] + listed[2:]).filename == "wheelpkg-3.0-py3-none-any.whl"


def test_new_releases_are_read_from_the_index(index) -> None:
    for name, requires, yanked in WHEELS:
        index.add("wheelpkg", name, b"", requires_python=requires, yanked=yanked)
    assert pypi_versions(_project("wheelpkg", "wheelpkg", pip_platforms=PLATFORMS)) == ["2.1", "2.0", "1.8"]
    assert pypi_versions(_project("wheelpkg", "wheelpkg", artifact="sdist")) == ["2.3", "2.0"]
    with pytest.raises(FetchError, match="HTTP 404"):
        pypi_versions(_project("gone", "gone"))
