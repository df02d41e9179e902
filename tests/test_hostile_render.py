"""Hostile text in EVERY text field: the built site shows it literally; nothing runs, nothing is interpreted."""

from __future__ import annotations

import copy
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from generator.cli import main
from generator.records.model import Record
from generator.yamlout import dump_record

DATA = Path(__file__).parent.parent / "data/errors"
PAYLOAD = ('<script>alert(1)</script><img src=x onerror=alert(2)> {{ 7*7 }} {% raw %} {{ cycler.__init__.__globals__.os.getcwd() }} '
           '{str(e)} # heading ``` | pipe | [x](javascript:alert(3)) --8<-- "/etc/passwd" &amp; </textarea>')
EXTRA = {  # sections the record lacks, so that every renderer runs
    "example_fix": {"before": "a = 1", "after": "a = 2", "note": "n", "note_zh": "注"},
    "handling": {"strategy": "retry", "validate_before": "x", "type_guard": "y", "try_catch": "z"},
    "os_specific": {"linux": "l"}, "os_specific_zh": {"linux": "中"},
    "common_situations": "c", "common_situations_zh": "常",
}


def _poison(value, path=()):
    """Every string replaced by the payload (with Chinese added where a Chinese field needs it)."""
    if isinstance(value, dict):
        return {k: _poison(v, path + (k,)) for k, v in value.items()}
    if isinstance(value, list):
        return [_poison(v, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, str):  # each field's text differs (a translation equal to its English is refused)
        zh = any(isinstance(p, str) and p.endswith("_zh") for p in path)
        return PAYLOAD + f" ({'/'.join(map(str, path))})" + (" 中文" if zh else "")
    return value


def hostile_record() -> dict:
    data = yaml.safe_load((DATA / "vllm/block-manager-out-of-memory.yaml").read_text(encoding="utf-8"))
    data.update(copy.deepcopy(EXTRA))
    data.pop("zh_fingerprints", None)
    poisoned = _poison(data)
    # Keep only the poison the schema allows (ids, enums, dates, urls have fixed forms): field by field.
    result = data
    # The pattern and its examples must still agree (the build checks them); the snippet keeps its line count.
    skip = {("error", "regex")}
    snippet_lines = data["source"]["snippet"].rstrip("\n").count("\n") + 1
    poisoned["source"]["snippet"] = "\n".join([PAYLOAD] * snippet_lines) + "\n"
    for pointer in _leaves(data):
        if pointer in skip or pointer[:2] in {("error", "examples"), ("error", "counter_examples")}:
            continue
        trial = _set(copy.deepcopy(result), pointer, _get(poisoned, pointer))
        try:
            Record.model_validate(trial)
        except ValidationError:
            continue
        result = trial
    return result


def _leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    elif isinstance(value, str):
        yield path


def _get(value, path):
    for p in path:
        value = value[p]
    return value


def _set(value, path, new):
    _get(value, path[:-1])[path[-1]] = new
    return value


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "img" and dict(attrs).get("src") == "x":
            self.bad.append("img")
        if any(k.startswith("on") for k, _ in attrs):
            self.bad.append(f"{tag} with an event handler")
        if any(v and "javascript:" in v.lower() for k, v in attrs if k in ("href", "src")):
            self.bad.append(f"{tag} with a javascript: url")

    def handle_data(self, data) -> None:
        if "alert(1)" in data and self.lasttag == "script":
            self.bad.append("script from the record")


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> tuple[Path, dict]:
    record = hostile_record()
    root = tmp_path_factory.mktemp("hostile")
    data = root / "data"
    (data / "vllm").mkdir(parents=True)
    (data / "vllm/block-manager-out-of-memory.yaml").write_text(dump_record(record), encoding="utf-8")
    assert main(["build", "--data", str(data), "--out", str(root / "site"), "--quiet"]) == 0
    return root / "site", record


def test_payload_reached_many_fields(hostile_site) -> None:
    _, record = hostile_site
    poisoned = [p for p in _leaves(record) if _get(record, p).startswith(PAYLOAD)]
    assert len(poisoned) >= 40  # explanation, solutions, dead ends, workarounds, versions, snippet, handling, ...


@pytest.mark.parametrize("page", ["errors/vllm/block-manager-out-of-memory/index.html", "zh/errors/vllm/block-manager-out-of-memory/index.html"])
def test_every_field_shows_literally(hostile_site, page) -> None:
    site, record = hostile_site
    html = (site / page).read_text(encoding="utf-8")
    parser = _Elements()
    parser.feed(html)
    assert parser.bad == []
    assert ">49<" not in html and " 49 " not in html  # no template ever evaluated record text
    assert str(Path.cwd()) not in html  # the macros payload did not run
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown, escaped
    assert "{{ 7*7 }}" in html and "{% raw %}" in html and "{str(e)}" in html
    assert "root:x:0:0" not in html  # no file was included


def test_api_file_carries_the_text_verbatim(hostile_site) -> None:
    import json

    site, record = hostile_site
    api = json.loads((site / "api/errors/vllm/block-manager-out-of-memory.json").read_text(encoding="utf-8"))
    assert api["record"]["explanation"] == record["explanation"] == PAYLOAD + " (explanation)"
