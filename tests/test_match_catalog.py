"""`errdex match --catalog [--version PROJECT==RELEASE]`: records and catalog entries in a log, with the releases
that raise each message (over tests/fixtures/dataset and its catalog, tests/fixtures/catalog)."""

from __future__ import annotations

import json
from pathlib import Path

from generator.cli import main

DATASET = Path(__file__).parent / "fixtures" / "dataset"
LOG = ("INFO start\n"
       "RuntimeError: Scheduler queue is full (12 waiting)\n"
       "servekit.CacheOOMError: Cannot allocate 512 KV cache blocks: out of GPU memory\n")


def _run(capsys, tmp_path, *args: str) -> tuple[int, str, str]:
    log = tmp_path / "server.log"
    log.write_text(LOG, encoding="utf-8")
    code = main(["match", str(log), "--catalog", "--data", str(DATASET), *args])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_catalog_entries_come_with_their_raise_site_and_releases(capsys, tmp_path):
    code, out, _ = _run(capsys, tmp_path, "--format", "json")
    body = json.loads(out)
    assert code == 0
    by_line = {r["line"]: r for r in body["results"]}
    entry = by_line[2]  # no record has this message: the catalog's entry answers
    assert entry["type"] == "catalog" and entry["id"] == "demo/6c82ce52ae657a8f"
    assert entry["catalog"]["sites"][0] == {"from": "0.2.0", "to": "0.3.0", "path": "servekit/sched.py", "line": 88,
                                            "statement": 'raise RuntimeError(f"Scheduler queue is full ({len(self.waiting)} waiting)")'}
    assert entry["catalog"]["releases"] == [["0.2.0", "0.3.0"]] and entry["values"] == ["12"]
    record = by_line[3]  # a record ranks as a record, with the catalog's releases beside it
    assert record["type"] == "record" and record["id"] == "demo/kv-cache-out-of-memory"
    assert record["catalog"][0]["releases"]


def test_the_release_asked_for_changes_the_answer(capsys, tmp_path):
    _, plain, _ = _run(capsys, tmp_path, "--format", "json")
    code, old, _ = _run(capsys, tmp_path, "--format", "json", "--version", "servekit==0.1.0")
    assert code == 0
    before = next(r for r in json.loads(plain)["results"] if r["line"] == 2)
    after = next(r for r in json.loads(old)["results"] if r["line"] == 2)
    assert after["score"] == before["score"] - 30  # 0.1.0 does not raise it: added in 0.2.0
    assert "-30: demo 0.1.0 does not have this message (added in 0.2.0)" in after["why"]
    _, new, _ = _run(capsys, tmp_path, "--format", "json", "--version", "demo==0.3.0")
    assert next(r for r in json.loads(new)["results"] if r["line"] == 2)["score"] == before["score"] + 10


def test_text_names_the_site_releases_and_that_there_is_no_guide(capsys, tmp_path):
    code, out, _ = _run(capsys, tmp_path)
    assert code == 0
    assert "(catalog entry, score" in out and "raised at servekit/sched.py:88 (as of 0.3.0)" in out
    assert "demo · RuntimeError · raised since 0.2.0 (to 0.3.0, the newest harvested)" in out and "no record explains it yet" in out
    assert "fix: none yet (no record explains this message)" in out and out.count("message: Scheduler") == 1
    assert "catalog/demo/messages/6c82ce52ae657a8f.html" in out  # its own page on the site
    assert "demo/kv-cache-out-of-memory  (record, score" in out
    # the entry's guide, read from the code at a release and said to be so
    assert ("   Read from the code of demo 0.3.0 (not a curated fix):\n"
            "     Raised when: len(self.waiting) >= self.max_waiting\n"
            "     Comment above it: refuse new requests rather than queue them without bound\n"
            "     In admit: Admit a request into the waiting queue.\n"
            "     Options it names:\n"
            "       --max-waiting (default 64): Requests that may wait for a slot.\n") in out


def test_the_guide_is_in_the_json_answer_and_the_card(capsys, tmp_path):
    _, out, _ = _run(capsys, tmp_path, "--format", "json")
    entry = next(r for r in json.loads(out)["results"] if r["line"] == 2)
    assert entry["catalog"]["guide"]["guard"] == {"kind": "if", "source": "len(self.waiting) >= self.max_waiting"}
    assert entry["card"]["from_code"] == entry["catalog"]["guide"]
    assert entry["card"]["url"].endswith("/catalog/demo/messages/6c82ce52ae657a8f.html")  # user-facing: its own page


def test_usage_errors(capsys, tmp_path):
    assert _run(capsys, tmp_path, "--version", "demo")[0] == 2
    assert main(["match", "x.log", "--no-catalog", "--version", "demo==0.3.0"]) == 2
    assert "--version ranks catalog entries; leave out --no-catalog" in capsys.readouterr().err
    assert main(["match", "x.log", "--no-catalog", "--catalog"]) == 2
    assert "contradict" in capsys.readouterr().err
    assert main(["match", "x.log", "--index", "match.json", "--version", "demo==0.3.0"]) == 2
    assert "--index matches an API match.json's records alone" in capsys.readouterr().err


def test_the_catalog_is_on_by_default_and_no_catalog_leaves_it_out(capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text(LOG, encoding="utf-8")
    assert main(["match", str(log), "--data", str(DATASET), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["results"]
    assert {r["type"] for r in found} == {"record", "catalog"}
    assert main(["match", str(log), "--data", str(DATASET), "--format", "json", "--no-catalog"]) == 0
    alone = json.loads(capsys.readouterr().out)["results"]
    assert [r["id"] for r in alone] == ["demo/kv-cache-out-of-memory"] and "catalog" not in alone[0]


TRACEBACK = ('Traceback (most recent call last):\n'
             '  File "/opt/venv/lib/python3.12/site-packages/servekit/sched.py", line 88, in admit\n'
             '    raise RuntimeError(f"Scheduler queue is full ({len(self.waiting)} waiting)")\n'
             'RuntimeError: Scheduler queue is full (3 waiting)\n')


def test_a_traceback_frame_gives_the_releases_it_fits(capsys, tmp_path):
    log = tmp_path / "tb.log"
    log.write_text(TRACEBACK, encoding="utf-8")
    assert main(["match", str(log), "--catalog", "--data", str(DATASET), "--format", "json"]) == 0
    fits = json.loads(capsys.readouterr().out)["traceback"]
    assert fits == [{"project": "demo", "releases": [["0.2.0", "0.3.0"]],
                     "frames": [{"site": "servekit/sched.py:88", "entries": ["demo/6c82ce52ae657a8f"]}]}]
    assert main(["match", str(log), "--catalog", "--data", str(DATASET)]) == 0
    assert capsys.readouterr().out.startswith("traceback: fits demo 0.2.0 to 0.3.0 (frames at servekit/sched.py:88)\n")
    # A frame at a line where no release raises: nothing is claimed.
    log.write_text(TRACEBACK.replace("line 88", "line 87"), encoding="utf-8")
    main(["match", str(log), "--catalog", "--data", str(DATASET), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["traceback"] == []


def test_a_big_log_scanned_by_two_processes_gives_the_same_answer(capsys, tmp_path, monkeypatch):
    """The traceback's frames and the version drift are worked out while the second process scans (the log is
    past PARALLEL_FROM): the whole answer is the one a single pass gives."""
    from generator.match import engine

    log = tmp_path / "big.log"
    log.write_text("chatter\n" * 500 + TRACEBACK + "ImportError: cannot import name 'Scheduler' from 'servekit' "
                   "(/venv/lib/python3.11/site-packages/servekit/__init__.py)\n" + "chatter\n" * 500, encoding="utf-8")
    answers = []
    for least in (1 << 60, 1):
        monkeypatch.setattr(engine, "PARALLEL_FROM", least)
        assert main(["match", str(log), "--data", str(DATASET), "--format", "json", "--version", "demo==0.1.0"]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0] == answers[1]
    assert answers[0]["traceback"] and answers[0]["drift"] and answers[0]["results"]


def test_a_misspelt_project_is_refused_with_the_near_names(capsys, tmp_path):
    code, _, err = _run(capsys, tmp_path, "--version", "dmeo==0.3.0")
    assert code == 2 and "no project is named 'dmeo'; did you mean demo?" in err
    code, _, err = _run(capsys, tmp_path, "--version", "zzz==1.0")
    assert code == 2 and "the projects are demo" in err and "did you mean" not in err


def test_a_terminal_on_standard_input_is_told_what_to_do(capsys, monkeypatch):
    import io

    class Terminal(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stdin", Terminal(io.BytesIO(b"INFO start\n")))
    assert main(["match", "--data", str(DATASET)]) == 1
    got = capsys.readouterr()
    assert "reading the log from standard input: paste it, then press Ctrl-D" in got.err
    assert got.out.endswith("no known error found in standard input: 1 line, 11 bytes\n")


def test_a_log_that_cannot_be_read_is_said_so_once_the_knowledge_is_open(capsys, tmp_path):
    """The log is read while the bundle opens; what is wrong is said in the same order as before: the knowledge
    first (a folder that holds no records), then the log (a folder, a missing file)."""
    missing = tmp_path / "missing.log"
    assert main(["match", "--data", str(tmp_path / "nothing"), str(missing)]) == 2
    assert "is not a folder of records" in capsys.readouterr().err
    for bad, said in ((tmp_path, "Is a directory"), (missing, "No such file or directory")):
        assert main(["match", "--data", str(DATASET), str(bad)]) == 2
        got = capsys.readouterr()
        assert got.err == f"errdex match: cannot read {bad}: {said}\n" and got.out == ""


def test_help_lists_what_people_look_up_first(capsys):
    assert main(["--help"]) == 0
    import re

    commands = re.findall(r"^    ([a-z][a-z-]+)(?:\s|$)", capsys.readouterr().out, flags=re.M)
    assert commands[:2] == ["match", "mcp"] and commands.index("validate") < commands.index("harvest")


def _run_log(capsys, tmp_path, text: str, *args: str) -> tuple[int, str]:
    log = tmp_path / "drift.log"
    log.write_text(text, encoding="utf-8")
    code = main(["match", str(log), "--data", str(DATASET), *args])
    return code, capsys.readouterr().out


def test_version_drift_is_answered_first_in_text_and_json(capsys, tmp_path):
    log = "ImportError: cannot import name 'Scheduler' from 'servekit' (/venv/lib/python3.11/site-packages/servekit/__init__.py)\n"
    code, out = _run_log(capsys, tmp_path, log, "--version", "demo==0.1.0")
    assert code == 0  # no record or catalog entry: the drift answer is an answer
    assert out.startswith("version drift (line 1, import):\n   demo: servekit.Scheduler\n")
    assert "was added in servekit 0.2.0" in out and "Your servekit 0.1.0 does not have it." in out
    assert "   copy: pip install 'servekit>=0.2.0'\n" in out
    code, out = _run_log(capsys, tmp_path, log, "--format", "json")
    (drift,) = json.loads(out)["drift"]
    assert drift["line"] == 1 and drift["candidates"][0]["install"] == "pip install 'servekit>=0.2.0'"
    # --no-catalog leaves the catalog's symbol index out too
    code, out = _run_log(capsys, tmp_path, log, "--no-catalog")
    assert code == 1 and "version drift" not in out


def test_a_traceback_frame_at_a_raise_site_names_that_site(capsys, tmp_path):
    log = tmp_path / "tb.log"
    log.write_text('Traceback (most recent call last):\n'
                   '  File "/opt/venv/lib/python3.11/site-packages/servekit/sched.py", line 88, in admit\n'
                   '    raise RuntimeError(f"Scheduler queue is full ({len(self.waiting)} waiting)")\n'
                   'RuntimeError: Scheduler queue is full (12 waiting)\n', encoding="utf-8")
    assert main(["match", str(log), "--data", str(DATASET), "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    entry = next(r for r in body["results"] if r["id"] == "demo/6c82ce52ae657a8f")
    assert entry["catalog"]["fits_frame"] == "servekit/sched.py:88"  # the frame, from the package folder on
    assert entry["catalog"]["sites"][0]["path"] == "servekit/sched.py" and entry["catalog"]["sites"][0]["from"] == "0.2.0"
    assert main(["match", str(log), "--data", str(DATASET)]) == 0
    assert "raised at servekit/sched.py:88 (your traceback's frame; there in 0.2.0 to 0.3.0)" in capsys.readouterr().out
