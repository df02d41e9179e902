"""`errdex match` as an installed tool: outside any checkout it matches with the knowledge bundle the wheel ships
(the records and the catalog), links are absolute, --index takes a file or an address, and usage problems exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parent.parent
LOG = "INFO start\nValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\n"


def _run(args: list[str], cwd: Path, path: Path | None = None) -> subprocess.CompletedProcess:
    code = "import sys; sys.path.insert(0, sys.argv[1]); from generator.cli import main; sys.exit(main(sys.argv[2:]))"
    return subprocess.run([sys.executable, "-c", code, str(path or REPO), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the checkout, the way `make wheel` builds it (errdex bundle, then pip wheel)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    shutil.copytree(REPO / "generator", src / "generator", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(REPO / "data" / "errors", src / "data" / "errors")
    shutil.copytree(REPO / "data" / "catalog", src / "data" / "catalog")
    for name in ("pyproject.toml", "README.md", "mkdocs.yml"):
        shutil.copy(REPO / name, src / name)
    done = _run(["bundle", "--data", str(src / "data" / "errors")], src, src)
    assert done.returncode == 0, done.stderr
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(work / "dist"), str(src)],
                   check=True, capture_output=True, timeout=300)
    return next((work / "dist").glob("errdex-*.whl"))


@pytest.mark.data
def test_the_wheel_ships_the_knowledge_bundle(wheel, tmp_path):
    from generator.bundle import Bundle

    with zipfile.ZipFile(wheel) as z:
        (tmp_path / "k.bundle").write_bytes(z.read("generator/data/knowledge.bundle"))
    summary = Bundle(tmp_path / "k.bundle").summary
    assert summary["site_url"] == "https://errdex.dev/" and summary["records"] == len(list((REPO / "data" / "errors").rglob("*.yaml")))
    catalog = sum(1 for f in (REPO / "data" / "catalog").glob("*.jsonl") for line in f.open("rb") if line.strip())
    assert summary["catalog_entries"] == catalog


@pytest.mark.data
def test_an_installed_errdex_matches_anywhere_with_absolute_links(wheel, tmp_path):
    installed = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(installed)
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    (elsewhere / "server.log").write_text(LOG, encoding="utf-8")
    done = _run(["match", "server.log"], elsewhere, installed)
    assert done.returncode == 0, done.stderr
    assert "vllm/no-available-memory-for-cache-blocks" in done.stdout
    assert "page: https://errdex.dev/errors/vllm/no-available-memory-for-cache-blocks/" in done.stdout
    assert "YML001" not in done.stderr and done.stderr == ""
    # a message no record explains: the catalog, shipped in the bundle, still names it, its site and releases
    (elsewhere / "other.log").write_text("ValueError: audio_data list items must be on the same device.\n", encoding="utf-8")
    done = _run(["match", "other.log"], elsewhere, installed)
    assert done.returncode == 0, done.stderr
    assert "vllm/0013fc6b4c8e0c1e  (catalog entry" in done.stdout and "raised at " in done.stdout
    assert "   vllm · ValueError · raised " in done.stdout  # its card: project, exception, the releases that raise it


def test_outside_a_checkout_without_match_data_is_a_usage_error(tmp_path):
    bare = tmp_path / "pkg"
    shutil.copytree(REPO / "generator", bare / "generator", ignore=shutil.ignore_patterns("__pycache__", "data"))
    (tmp_path / "x.log").write_text(LOG, encoding="utf-8")
    done = _run(["match", "x.log"], tmp_path, bare)
    assert done.returncode == 2
    assert done.stderr == "errdex match: no records here (data/errors) and no knowledge bundle installed; pass --data or --index\n"


def test_index_takes_an_address(tmp_path, real_url):
    (tmp_path / "x.log").write_text(LOG, encoding="utf-8")
    if True:
        url = real_url
        done = _run(["match", "x.log", "--index", url + "api/match.json", "--format", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["id"] == "vllm/no-available-memory-for-cache-blocks"
    bad = _run(["match", "x.log", "--index", "https://127.0.0.1:9/nothing.json"], tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("errdex match: cannot read https://127.0.0.1:9/nothing.json")
