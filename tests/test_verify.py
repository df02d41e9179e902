"""verify-sources against a small git repository made here, and online against a local raw-file server."""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from generator.cli import main
from generator.yamlout import dump_record

MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"
CODE = [
    "def allocate(cache, n, rid):",
    "    blocks = cache.take(n)",
    "    if blocks is None:",
    '        raise ValueError(f"Failed to allocate {n} blocks for request {rid}")',
    "    return blocks",
    "",
]


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture
def upstream(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "upstream"
    (repo / "engine").mkdir(parents=True)
    (repo / "engine/cache.py").write_text("\n".join(CODE), encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "cache")
    return repo, _git(repo, "rev-parse", "HEAD")


def _record(tmp_path: Path, commit: str, **source) -> Path:
    data = yaml.safe_load(MINIMAL.read_text(encoding="utf-8"))
    data["source"] = {"repo": "example-org/engine", "path": "engine/cache.py", "line": 4, "start_line": 3, "end_line": 5,
                      "commit": commit, "snippet": "\n".join(CODE[2:5]) + "\n", **source}
    folder = tmp_path / "data" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "minimal.yaml").write_text(dump_record(data), encoding="utf-8")
    return tmp_path / "data"


def _run(capsys, data: Path, *args: str) -> tuple[int, str]:
    code = main(["verify-sources", "--root", str(data), str(data), *args])
    return code, capsys.readouterr().out


def test_matching_snippet_passes(tmp_path, capsys, upstream) -> None:
    repo, commit = upstream
    code, out = _run(capsys, _record(tmp_path, commit), "--git", f"example-org/engine={repo}")
    assert code == 0, out
    assert "1 snippets checked against upstream" in out and "[SRC" not in out


def test_edited_line_is_a_snippet_difference(tmp_path, capsys, upstream) -> None:
    repo, commit = upstream
    edited = "\n".join(CODE[2:5]).replace("return blocks", "return blocks  # edited") + "\n"
    code, out = _run(capsys, _record(tmp_path, commit, snippet=edited), "--git", f"example-org/engine={repo}")
    assert code == 1
    assert "error[SRC102] /source/snippet: line 5: the file has '    return blocks' but the snippet has '    return blocks  # edited'" in out


def test_shifted_lines_are_reported_with_the_right_lines(tmp_path, capsys, upstream) -> None:
    repo, commit = upstream
    code, out = _run(capsys, _record(tmp_path, commit, start_line=2, end_line=4, line=3), "--git", f"example-org/engine={repo}")
    assert code == 1
    assert "error[SRC103] /source/start_line: the snippet stands at lines 3-5 of the file, not 2-4" in out


def test_wrong_commit_and_missing_file(tmp_path, capsys, upstream) -> None:
    repo, commit = upstream
    code, out = _run(capsys, _record(tmp_path, "f" * 40), "--git", f"example-org/engine={repo}")
    assert code == 1 and "error[SRC101]" in out and f"commit {'f' * 40} is not in" in out
    code, out = _run(capsys, _record(tmp_path, commit, path="engine/missing.py"), "--git", f"example-org/engine={repo}")
    assert code == 1 and "error[SRC101]" in out and "engine/missing.py does not exist at commit" in out


def test_raise_line_without_the_message_warns(tmp_path, capsys, upstream) -> None:
    repo, _ = upstream
    far = ["import os", "", "", "", "", "", "", ""] + CODE  # the message now stands at line 12
    (repo / "engine/far.py").write_text("\n".join(far), encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "far")
    commit = _git(repo, "rev-parse", "HEAD")
    data = _record(tmp_path, commit, path="engine/far.py", start_line=1, end_line=2, line=1, snippet="import os\n\n")
    code, out = _run(capsys, data, "--git", f"example-org/engine={repo}")
    assert code == 0 and "warning[SRC104] /source/line: lines 1-4 do not contain 'Failed to allocate' from the message" in out
    assert main(["verify-sources", "--strict", "--root", str(data), str(data), "--git", f"example-org/engine={repo}"]) == 1


def test_offline_by_default_nothing_is_checked(tmp_path, capsys, upstream) -> None:
    _, commit = upstream
    code, out = _run(capsys, _record(tmp_path, commit))
    assert code == 0 and "0 snippets checked against upstream, 1 not checked" in out


@pytest.fixture
def raw_host(upstream):
    """A local HTTP server laid out like the raw-file host: /OWNER/NAME/COMMIT/PATH."""
    repo, commit = upstream
    root = repo.parent / "raw"
    target = root / "example-org/engine" / commit / "engine"
    target.mkdir(parents=True)
    (target / "cache.py").write_text("\n".join(CODE), encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", commit
    server.shutdown()


def test_online_mode_reads_the_raw_file_host(tmp_path, capsys, raw_host) -> None:
    base, commit = raw_host
    code, out = _run(capsys, _record(tmp_path, commit), "--online", "--base-url", base)
    assert code == 0 and "1 snippets checked" in out
    code, out = _run(capsys, _record(tmp_path, commit, path="engine/gone.py"), "--online", "--base-url", base)
    assert code == 1 and "error[SRC101]" in out and "answered 404" in out


def test_unreachable_host_is_a_finding_not_a_traceback(tmp_path, capsys, upstream) -> None:
    _, commit = upstream
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, out = _run(capsys, _record(tmp_path, commit), "--online", "--base-url", f"http://127.0.0.1:{port}")
    assert code == 1 and "error[SRC105]" in out


def test_bad_arguments_are_usage_errors(tmp_path, capsys) -> None:
    assert main(["verify-sources", "--git", "no-equals-sign"]) == 2
    assert main(["verify-sources", "--git", f"a/b={tmp_path / 'missing'}"]) == 2
    assert main(["verify-sources", "--online", "--base-url", "file:///etc"]) == 2


# ---------------------------------------------------------------- --release: the snippet inside the release's artifact

def _wheel(folder: Path, version: str = "1.2.0", code: list[str] = CODE) -> Path:
    """A real wheel of a package `fixture-engine` whose `engine/cache.py` holds `code` (no network needed)."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"fixture_engine-{version}-py3-none-any.whl"
    info = f"fixture_engine-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("engine/__init__.py", "")
        wheel.writestr("engine/cache.py", "\n".join(code))
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: fixture-engine\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


def _release(wheel: Path, sha: str | None = None) -> dict:
    from generator.verify.artifacts import sha256_file

    return {"version": "1.2.0", "package": "fixture-engine", "artifact": wheel.name, "sha256": sha or sha256_file(wheel)}


def test_release_mode_checks_the_snippet_in_the_named_artifact(tmp_path, capsys) -> None:
    wheel = _wheel(tmp_path / "index")
    # The repository path is src/engine/cache.py; the wheel has it as engine/cache.py.
    data = _record(tmp_path, "0" * 40, path="src/engine/cache.py", release=_release(wheel))
    args = ("--release", "--find-links", str(tmp_path / "index"), "--cache", str(tmp_path / "cache"))
    code, out = _run(capsys, data, *args)
    assert code == 0 and "1 snippets checked against their release artifacts" in out
    assert (tmp_path / "cache/artifacts" / _release(wheel)["sha256"] / wheel.name).is_file()  # kept for next time
    (tmp_path / "index" / wheel.name).unlink()
    code, out = _run(capsys, data, *args)  # from the cache alone
    assert code == 0 and "1 snippets checked" in out


def test_release_mode_reports_another_artifact_and_a_changed_file(tmp_path, capsys) -> None:
    wheel = _wheel(tmp_path / "index")
    args = ("--release", "--find-links", str(tmp_path / "index"), "--cache", str(tmp_path / "cache"))
    data = _record(tmp_path, "0" * 40, release=_release(wheel, sha="f" * 64))
    code, out = _run(capsys, data, *args)
    assert code == 1 and "error[SRC106] /source/release/sha256" in out
    edited = CODE[:3] + ['        raise ValueError("changed")'] + CODE[4:]
    wheel = _wheel(tmp_path / "index2", code=edited)
    data = _record(tmp_path, "0" * 40, release=_release(wheel))
    code, out = _run(capsys, data, "--release", "--find-links", str(tmp_path / "index2"), "--cache", str(tmp_path / "cache2"))
    assert code == 1 and "error[SRC102]" in out
    data = _record(tmp_path, "0" * 40, release={**_release(wheel), "version": "9.9.9"})
    code, out = _run(capsys, data, "--release", "--find-links", str(tmp_path / "index2"), "--cache", str(tmp_path / "cache3"))
    assert code == 1 and "error[SRC101]" in out and "fixture-engine==9.9.9" in out


def test_release_mode_skips_records_without_a_package_artifact(tmp_path, capsys, upstream) -> None:
    _, commit = upstream
    data = _record(tmp_path, commit, release={"version": "1.2.0", "tag": "v1.2.0"})
    code, out = _run(capsys, data, "--release", "--cache", str(tmp_path / "cache"))
    assert code == 0 and "0 snippets checked" in out and "1 not checked" in out


def test_release_mode_reads_a_git_tag_from_a_mirror(tmp_path, capsys, upstream) -> None:
    repo, commit = upstream
    _git(repo, "tag", "v1.2.0")
    data = _record(tmp_path, commit, release={"version": "1.2.0", "tag": "v1.2.0"})
    code, out = _run(capsys, data, "--release", "--git", f"example-org/engine={repo}", "--cache", str(tmp_path / "c"))
    assert code == 0 and "1 snippets checked" in out
    (repo / "engine/other.py").write_text("x = 1\n", encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "later")
    _git(repo, "tag", "-f", "v1.2.0")  # the tag now names another commit than the record's
    code, out = _run(capsys, data, "--release", "--git", f"example-org/engine={repo}", "--cache", str(tmp_path / "c"))
    assert code == 1 and "error[SRC106]" in out and "is commit" in out


def test_a_release_fetched_from_an_address_is_checked_against_its_sha256(tmp_path):
    """source.release.url: a source archive no package index has (a distribution's source package)."""
    import hashlib
    import io
    import tarfile

    from generator.verify import artifacts
    from generator.records.model import Release

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:xz") as tar:
        body = b"def f():\n    raise ValueError('boom')\n"
        info = tarfile.TarInfo("pkg-1.0/src/pkg/core.py")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    links = tmp_path / "links"
    links.mkdir()
    (links / "pkg_1.0.orig.tar.xz").write_bytes(raw.getvalue())
    digest = hashlib.sha256(raw.getvalue()).hexdigest()
    release = Release(version="1.0", artifact="pkg_1.0.orig.tar.xz", sha256=digest,
                      url="https://deb.example.org/pool/p/pkg/pkg_1.0.orig.tar.xz")
    path = artifacts.fetch(release, tmp_path / "cache", [links])
    assert artifacts.read_member(path, "src/pkg/core.py").endswith("raise ValueError('boom')\n")
    wrong = Release(version="1.0", artifact="pkg_1.0.orig.tar.xz", sha256="0" * 64, url=release.url)
    with pytest.raises(artifacts.ArtifactMismatch):
        artifacts.fetch(wrong, tmp_path / "cache2", [links])
    with pytest.raises(artifacts.ArtifactError, match="needs source.release.sha256"):
        artifacts.fetch(Release(version="1.0", artifact="pkg_1.0.orig.tar.xz", url=release.url), tmp_path / "c3", [links])


def test_a_file_a_build_moves_is_read_where_the_wheel_has_it(tmp_path: Path) -> None:
    """Triton's wheel installs `third_party/nvidia/backend/` as `triton/backends/nvidia/`: a record names the
    repository's path, and its snippet is read from the wheel's."""
    import zipfile

    from generator.verify import artifacts

    wheel = tmp_path / "triton-3.4.0-cp312-cp312-manylinux_2_27_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("triton/backends/nvidia/compiler.py", "def f():\n    raise PTXASError('ptxas failed')\n")
        z.writestr("triton/runtime/build.py", "x = 1\n")
    assert "ptxas failed" in artifacts.read_member(wheel, "third_party/nvidia/backend/compiler.py")
    assert artifacts.read_member(wheel, "python/triton/runtime/build.py") == "x = 1\n"
    with pytest.raises(artifacts.ArtifactError, match="holds no file"):
        artifacts.read_member(wheel, "third_party/amd/backend/compiler.py")
