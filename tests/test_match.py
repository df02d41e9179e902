"""`errdex match`, the matcher behind it, and the portable pattern subset that keeps it safe."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.api.export import api_files
from generator.match.engine import Matcher, Pattern
from generator.match.hits import fill_message
from generator.match.index import patterns_from_records
from generator.match.output import reasons
from generator.match import shared
from generator.match.shared import scan_shared
from generator.checks.pipeline import check
from generator.match.portable import analyse

MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"

# A vLLM-style server log: chatter, two tracebacks with values filled in, a scheduler failure, and noise that
# mentions the same words without being the errors.
LOG = """\
INFO 01-02 03:04:05 llm_engine.py:100] Initializing an LLM engine with config: model='meta-llama/Llama-3-8B'
INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK
WARNING 01-02 03:04:06 retrying: allocate blocks for request req-1 later
Traceback (most recent call last):
  File "/app/serve.py", line 12, in <module>
    engine.step()
  File "/app/engine.py", line 88, in step
    raise ValueError(f"Failed to allocate {n} blocks for request {rid}")
ValueError: Failed to allocate 12 blocks for request req-7f3a
INFO 01-02 03:04:08 Avg prompt throughput: 10.1 tokens/s
ERROR 01-02 03:04:09 Rank 3 scheduler died during initialization (exit code: -9)
Traceback (most recent call last):
  File "/app/worker.py", line 40, in run
AssertionError: 8 is not divisible by 3
ValueError: Failed to allocate 4 blocks for request req-99
"""


@pytest.fixture(scope="module")
def records():
    result = check()
    assert not result.failed
    return result.records


@pytest.fixture(scope="module")
def matcher(records) -> Matcher:
    return Matcher(patterns_from_records(records))


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["match", "--no-catalog", *argv])  # the records' own answers (test_match_catalog: with the catalog)
    return code, capsys.readouterr().out


@pytest.mark.data  # the repository's own records, through their compiled bundle (a cold compile: about 50 s)
def test_a_realistic_log_gives_its_records_in_order_with_spans_and_values(tmp_path, capsys):
    log = tmp_path / "server.log"
    log.write_text(LOG, encoding="utf-8")
    code, out = _run(capsys, str(log), "--format", "json")
    assert code == 0
    body = json.loads(out)
    assert body["lines"] == 15 and body["bytes"] == len(LOG.encode())
    ids = [r["id"] for r in body["results"]]
    assert ids == [
        "transformers/failed-to-allocate-blocks-for-request",  # 39 literal characters + 25 (ValueError) + 1 (twice)
        "sglang/not-divisible-tensor-parallel-size",  # 37 + 25 (AssertionError on the line)
        "sglang/scheduler-died-during-initialization",  # 60, no exception class named
    ]
    first, alloc, sched = (next(r for r in body["results"] if r["id"] == i) for i in (
        "sglang/not-divisible-tensor-parallel-size", "transformers/failed-to-allocate-blocks-for-request", "sglang/scheduler-died-during-initialization"))
    assert alloc["line"] == 9 and alloc["column"] == 13 and alloc["occurrences"] == 2 and alloc["lines"] == [9, 15]
    assert alloc["text"] == "ValueError: Failed to allocate 12 blocks for request req-7f3a"
    assert alloc["span"] == [12, 61] and alloc["match"] == "Failed to allocate 12 blocks for request req-7f3a"
    assert alloc["values"] == ["12", "req-7f3a"]
    assert alloc["message"] == "Failed to allocate 12 blocks for request req-7f3a"
    assert alloc["url"] == "https://errdex.dev/errors/transformers/failed-to-allocate-blocks-for-request/"  # absolute: it opens from a terminal
    assert alloc["title"] == "Transformers continuous batching: paged cache block allocation failed"  # the record's title
    assert any("ValueError is on the line" in w for w in alloc["why"]) and any("found 2 times" in w for w in alloc["why"])
    assert sched["line"] == 11 and sched["values"] == ["3", "-9"] and sched["match"].startswith("Rank 3 scheduler died")
    assert first["line"] == 14 and first["values"] == ["8", "3"] and first["span"] == [0, 39]
    # ranked by score, and the scores say why
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    assert (alloc["score"], first["score"], sched["score"]) == (39 + 25 + 1, 37 + 25, 60)


@pytest.mark.data  # the repository's own records, through their compiled bundle (a cold compile: about 50 s)
def test_text_output_names_the_record_the_line_and_the_page(tmp_path, capsys):
    log = tmp_path / "server.log"
    log.write_text(LOG, encoding="utf-8")
    code, out = _run(capsys, str(log), "--top", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("1. ")
    # the card first: title, project and exception, the best fix, the page; then where in the log
    assert lines[2].startswith("   transformers · ValueError · ") and lines[3].startswith("   fix (")
    at = next(i for i, line in enumerate(lines) if line.startswith("   line "))
    assert "^^^^" in lines[at + 1] and lines[at - 1].startswith("   page: https://errdex.dev/errors/")
    assert "why: specificity" in out
    assert lines[-1].startswith("3 known errors found in") and "(showing 1)" in lines[-1]


@pytest.mark.data  # the repository's own records, through their compiled bundle (a cold compile: about 50 s)
def test_a_log_without_a_known_error_exits_1(tmp_path, capsys):
    log = tmp_path / "quiet.log"
    log.write_text("INFO all good\nTraceback (most recent call last):\nKeyboardInterrupt\n", encoding="utf-8")
    code, out = _run(capsys, str(log))
    assert code == 1 and out.startswith("no known error found")
    code, out = _run(capsys, str(log), "--format", "json")
    assert code == 1 and json.loads(out)["results"] == []


def test_standard_input_and_an_api_index(tmp_path, capsys, monkeypatch, records):
    index = tmp_path / "match.json"
    index.write_bytes(api_files(records)["match.json"])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(LOG.encode())))
    code, out = _run(capsys, "-", "--index", str(index), "--format", "json")
    assert code == 0
    assert "transformers/failed-to-allocate-blocks-for-request" in [r["id"] for r in json.loads(out)["results"]]


def test_several_records_on_one_line_are_all_shown_best_first():
    patterns = [
        Pattern("demo/generic", r"CUDA error: ([^\n]+)", "CUDA error: {}", "generic", "/errors/demo/generic/"),
        Pattern("demo/assert", r"CUDA error: (device-side assert triggered)", "CUDA error: {}", "assert", "/errors/demo/assert/",
                exception_class="torch.AcceleratorError"),
    ]
    m = Matcher(patterns)
    ranked = m.rank(m.scan_text("noise\nAcceleratorError: CUDA error: device-side assert triggered\n"))
    assert [r.pattern.id for r in ranked] == ["demo/assert", "demo/generic"]
    assert ranked[0].first.line == ranked[1].first.line == 2
    assert reasons(ranked[1])[-1] == "on the same line as #1, which is more specific"
    assert ranked[0].first.groups == ("device-side assert triggered",)


def test_case_insensitive_patterns_and_their_literals():
    m = Matcher([Pattern("demo/ci", r"(?i)cuda out of memory\. tried to allocate (\d+) MiB", "CUDA out of memory. Tried to allocate {} MiB", "t", "/u/")])
    hits = m.scan_text("torch.OutOfMemoryError: CUDA OUT OF MEMORY. Tried to allocate 20 MiB\n")
    assert [(h.line, h.groups) for h in hits] == [(1, ("20",))]


def test_a_repeated_line_without_a_hit_is_read_once_and_answers_do_not_change(monkeypatch):
    patterns = [
        Pattern("demo/alloc", r"Failed to allocate (\d+) blocks", "Failed to allocate {} blocks", "t", "/u/"),
        Pattern("cat/casting", r"Casting ([^ \n]+?) to (.+?)\.", "Casting {} to {}.", "c", "/c/"),  # a catalog entry: evidence decides
    ]
    log = ("WARNING config.py:1] Casting torch.float32 to torch.bfloat16.\n"  # too little of the line: no answer
           "ValueError: Failed to allocate 12 blocks\n") * 50 + "Casting a to b.\n"
    m = Matcher(patterns, evidence_from=1)
    looked = []
    original = m._line_hits
    monkeypatch.setattr(m, "_line_hits", lambda line, *rest: (looked.append(line), original(line, *rest))[1])
    hits = list(m.scan(io.BytesIO(log.encode())))
    assert looked.count(b"WARNING config.py:1] Casting torch.float32 to torch.bfloat16.") == 1
    assert looked.count(b"ValueError: Failed to allocate 12 blocks") == 50  # a line with a hit is read each time
    alone = [h for i, line in enumerate(log.splitlines(), 1)  # each line on its own, by a matcher that remembers nothing
             for h in Matcher(patterns, evidence_from=1).scan(io.BytesIO(line.encode()), first_line=i)]
    assert [(h.pattern, h.line, h.groups) for h in hits] == [(h.pattern, h.line, h.groups) for h in alone]
    assert [h.pattern for h in hits].count(0) == 50 and [h.line for h in hits if h.pattern == 1] == [101]  # "Casting a to b." answers


class _Forgetful(set):
    """A memo of quiet lines that remembers nothing."""

    def add(self, line: bytes) -> None:
        pass


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["Casting a to b.", "WARNING x] Casting torch.float32 to torch.bfloat16.", "noise",
                                 "Failed to allocate 3 blocks", "Failed to allocate", "é" * 30, "Casting nothing"]),
                min_size=1, max_size=40),
       st.lists(st.sampled_from(["\n", "\r\n", " "]), min_size=1, max_size=40))
def test_remembering_quiet_lines_never_changes_an_answer(pieces, joints):
    """Whatever repeats, wherever lines end ("\r\n" too) and however an overlong line is cut into windows (some the
    bytes of a line found quiet before), remembering quiet lines gives the hits a matcher that remembers nothing gives."""
    log = "".join(p + joints[i % len(joints)] for i, p in enumerate(pieces)).encode()
    assert _answers(log, forget=False) == _answers(log, forget=True)


def test_a_window_that_leaves_a_match_to_the_next_is_not_remembered_quiet():
    """An overlong line's window leaves a match that starts in its overlap to the next window: those bytes are not
    quiet, and a later line of the same bytes has its hit."""
    line = "x" * 34 + "Failed to allocate 3 blocks" + "y" * 60  # the first window (64 bytes) holds the match, past byte 34
    log = (line + "\n" + line[:64] + "\n").encode()
    assert [(h.line, h.column) for h in _answers_hits(log, forget=False)] == [(1, 35), (2, 35)]
    assert _answers(log, forget=False) == _answers(log, forget=True)


def _answers_hits(log: bytes, forget: bool) -> list:
    patterns = [
        Pattern("demo/alloc", r"Failed to allocate (\d+) blocks", "Failed to allocate {} blocks for the cache", "t", "/u/"),
        Pattern("cat/casting", r"Casting ([^ \n]+?) to (.+?)\.", "Casting {} to {}.", "c", "/c/"),
    ]
    m = Matcher(patterns, evidence_from=1, max_line=64, overlap=30, block=32)
    if forget:
        m._quiet = _Forgetful()
    return list(m.scan(io.BytesIO(log), repeats=True))


def _answers(log: bytes, forget: bool) -> list:
    return [(h.pattern, h.line, h.column, h.text, h.span, h.groups, h.partial) for h in _answers_hits(log, forget)]


def test_a_whole_match_shadows_a_partial_one_on_its_line_when_it_repeats_too():
    """A repeat of a pattern counts only (no text), yet still says where it matched: a partial hit it overlaps on a
    later line is shadowed there as on the first line, so one pass and two halves give the same results."""
    patterns = [
        Pattern("demo/whole", r"embedding_dim \(([0-9]+)\) must be divisible by world_size \(([0-9]+)\)",
                "embedding_dim ({}) must be divisible by world_size ({})", "w", "/w/"),
        Pattern("demo/longer", r"embedding_dim \(([0-9]+)\) must be divisible by world_size \(([0-9]+)\) for the tensor-parallel layer",
                "embedding_dim ({}) must be divisible by world_size ({}) for the tensor-parallel layer", "l", "/l/"),
    ]
    line = "ValueError: embedding_dim (1816) must be divisible by world_size (1816)\n"  # the longer message, cut off
    m = Matcher(patterns)
    assert any(h.partial for h in m.scan_text(line))  # the longer one is found partly on the line
    found = m.find(io.BytesIO((line + "noise\n" + line).encode()), parallel_from=1 << 40)
    assert [r.pattern.id for r in found] == ["demo/whole"] and found[0].occurrences == 2


def test_fill_message():
    assert fill_message("a {} b {} c", ["1", None]) == "a 1 b {} c"
    assert fill_message("no placeholder", ["x"]) == "no placeholder"


def test_an_overlong_line_is_scanned_in_windows_and_each_match_reported_once():
    m = Matcher([Pattern("demo/x", r"Failed to allocate (\d+) blocks", "Failed to allocate {} blocks", "t", "/u/")],
                max_line=1000, overlap=100, block=256)
    line = ("é" * 450 + " Failed to allocate 7 blocks ") * 20  # matches straddle window edges
    hits = m.scan_text("first\n" + line + "\nlast Failed to allocate 8 blocks\n")
    starts = [h.column for h in hits if h.line == 2]
    expected = [i + 1 for i in range(len(line)) if line.startswith("Failed to allocate 7 blocks", i)]
    assert starts == expected
    assert [h.groups for h in hits if h.line == 3] == [("8",)]


def test_a_100_mb_log_without_a_newline_runs_in_bounded_memory(tmp_path, matcher):
    log = tmp_path / "one-line.log"
    needle = b" ValueError: Failed to allocate 3 blocks for request r-1 "
    filler = (b"0123456789abcdef" * 4096)  # 64 KiB
    with open(log, "wb") as f:
        for i in range(1600):  # 100 MiB
            f.write(filler)
            if i == 800:
                f.write(needle)
    started = time.monotonic()
    tracemalloc.start()
    try:
        with open(log, "rb") as f:
            hits = list(matcher.scan(f))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 20
    assert peak < 16 * 1024 * 1024, f"peak {peak} bytes"
    assert [(h.line, h.column, h.groups) for h in hits] == [(1, 801 * len(filler) + 14, ("3", "r-1"))]  # 1-based, after " ValueError: "
    assert matcher.lines_read == 1 and matcher.bytes_read == log.stat().st_size


# -- the portable subset, as `validate` sees it --------------------------------------------------------------

def _record_with_regex(tmp_path: Path, regex: str, drop_counter_examples: bool = False) -> Path:
    text = MINIMAL.read_text(encoding="utf-8")
    old = "  regex: 'Failed to allocate (\\d+) blocks for request (\\S+)'"
    assert old in text
    text = text.replace(old, "  regex: '" + regex.replace("'", "''") + "'")
    if drop_counter_examples:
        text = text.replace("  counter_examples:\n    - Failed to allocate memory\n", "")
    path = tmp_path / "demo" / "minimal.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("regex, construct", [
    (r"Failed to allocate (\d+) blocks for request (\S+) \2", "`\\2`"),
    (r"Failed to allocate (\d+) blocks(?= for request)", "look-ahead `(?=`"),
    (r"(?<=ValueError: )Failed to allocate (\d+) blocks", "look-behind `(?<=`"),
    (r"Failed to allocate (?P<n>\d+) blocks", "named group `(?P<name>`"),
    (r"\AFailed to allocate", "`\\A`"),
    (r"Failed to (?i)allocate", "inline flags `(?i)`"),
    (r"Failed to allocate (\d++) blocks", "possessive quantifier `++`"),
    (r"Failed to allocate [[:digit:]]+ blocks", "POSIX class `[:digit:]`"),
    (r"Failed to allocate {} blocks", "a `{` that is not a repetition"),
])
def test_validate_refuses_unportable_patterns(tmp_path, capsys, regex, construct):
    path = _record_with_regex(tmp_path, regex)
    code = main(["validate", str(path), "--root", str(tmp_path), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert [f["code"] for f in findings][:1] == ["RGX005"]
    assert construct in findings[0]["message"] and findings[0]["hint"]


@pytest.mark.parametrize("regex, why", [
    (r".*", "matches the empty string"),
    (r"(\w+)", "no fixed text"),
    (r"Failed|(\d+)", "no fixed text"),
    (r"(\S+) (\S+) (\S+)", "no fixed text"),
    (r"(?i)the (\w+) (\w+)", "ordinary text"),
])
def test_validate_refuses_patterns_that_match_almost_anything(tmp_path, capsys, regex, why):
    path = _record_with_regex(tmp_path, regex, drop_counter_examples=True)
    code = main(["validate", str(path), "--root", str(tmp_path), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    broad = [f for f in findings if f["code"] == "RGX006"]
    assert code == 1 and len(broad) == 1 and why in broad[0]["message"]


def test_every_record_is_portable_and_specific(records):
    for r in records:
        a = analyse(r.error.regex)
        assert a.portable, (r.id, a.problems)
        assert a.literals and min(map(len, a.literals)) >= 4, r.id


def test_literals_are_inside_every_match(records):
    """The prefilter's promise: each example match contains one of the pattern's literals."""
    for r in records:
        a = analyse(r.error.regex)
        compiled = re2.compile(r.error.regex)
        for text in (e.text for e in r.error.examples):
            found = compiled.search(text).group(0)
            hay = found.lower() if a.ignore_case else found
            assert any(lit in hay for lit in a.literals), (r.id, text)


# Tricky text for the differential test: Unicode spaces, line separators, case folds, astral characters.
TRICKY = ["", "a\u00a0b", "x\u2028y", "a\rb", "\u017f\u212a", "😀 Failed to allocate 1 blocks for request 😀", "\v\f\t "]
PORTABLE = [r"a.b", r"x.y", r"a\sb", r"a\Sb", r"[\s\S]+", r"(?i)k", r"(?i)s", r"\w+", r"\bFailed", r"(\S+) blocks",
            r"[\d.]+", r"\-\:\'", r"[^a]+", r"\p{L}+", r"\p{Han}", r"a{2,3}", r"(?:x|y)+?", r"^\S+$", r"[\S,]+"]


def test_javascript_form_means_the_same_as_re2(records):
    """Every record's pattern, and some tricky ones, give the same spans and groups in RE2 and in V8."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cases = []
    for r in records:
        for text in [*(e.text for e in r.error.examples), *r.error.counter_examples, *TRICKY]:
            cases.append((r.error.regex, text))
    for pattern in PORTABLE:
        for text in [*TRICKY, "aXb", "xyz", "ab", "aab", "中文 Kelvin", "12.5 GiB", "-:'"]:
            cases.append((pattern, text))
    payload = []
    expected = []
    for pattern, text in cases:
        a = analyse(pattern)
        assert a.portable, (pattern, a.problems)
        payload.append([a.js_source, a.js_flags, text])
        m = re2.compile(pattern).search(text)
        if m is None:
            expected.append(None)
        else:
            # JavaScript counts UTF-16 code units; compare the matched strings instead of offsets.
            expected.append([m.group(0), *m.groups()])
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(cases.map(([s, f, t]) => { const m = new RegExp(s, f).exec(t);"
        " return m ? Array.from(m, v => v === undefined ? null : v) : null; })));"
    )
    out = subprocess.run([node, "-e", script], input=json.dumps(payload), capture_output=True, text=True, check=True).stdout
    got = json.loads(out)
    mismatches = [(c[0], c[1], e, g) for c, e, g in zip(cases, expected, got) if e != g]
    assert not mismatches, mismatches[:5]


def test_work_beside_a_scan_runs_once_in_this_process_either_way(matcher):
    import io
    import os

    data = (LOG * 40).encode("utf-8")
    answers = []
    for parallel_from in (0, 1 << 60):  # two processes; one
        ran: list[int] = []
        found = matcher.find(io.BytesIO(data), parallel_from=parallel_from, beside=lambda: ran.append(os.getpid()))
        assert ran == [os.getpid()]
        answers.append([(r.pattern.id, r.first, r.occurrences) for r in found])
    assert answers[0] == answers[1] and answers[0]


@pytest.mark.parametrize("share", [shared.SHARE, 1000, 1])
def test_a_big_input_scanned_by_two_processes_gives_the_same_results(matcher, monkeypatch, share):
    """From PARALLEL_FROM bytes two processes scan the input, a part at a time: ranks, first hits (line numbers
    across the parts), counts, the lines and bytes read all equal a single pass's, whatever the parts' size
    (one part; a few lines each; the most parts forked.shared hands out) and wherever they fall."""
    import io

    monkeypatch.setattr(shared, "SHARE", share)
    for tail in ("", "no newline at the end: ValueError: Failed to allocate 3 blocks for request r"):
        data = ((LOG * 40) + tail).encode("utf-8")
        one = matcher.find(io.BytesIO(data), parallel_from=1 << 60)
        single = [(r.pattern.id, r.first, r.occurrences, r.lines, r.score, r.why) for r in one], matcher.lines_read, matcher.bytes_read
        two = matcher.find(io.BytesIO(data), parallel_from=0)
        halves = [(r.pattern.id, r.first, r.occurrences, r.lines, r.score, r.why) for r in two], matcher.lines_read, matcher.bytes_read
        assert halves == single and single[0] and single[1] == data.count(b"\n") + (1 if tail else 0)
        assert max(r.occurrences for r in one) >= 40
        # every hit, on its own line number, in every part
        lines = [(h.pattern, h.line, h.exception_on_line) for h in matcher.scan(io.BytesIO(data), repeats=True)]
        assert [(h.pattern, h.line, h.exception_on_line) for h in scan_shared(matcher, io.BytesIO(data))] == lines
        # a stream already read in part is scanned from where it stands, as a single pass would
        skipped = len(LOG.encode("utf-8")) * 3
        stream = io.BytesIO(data)
        stream.seek(skipped)
        rest = [(h.pattern, h.line, h.exception_on_line) for h in matcher.scan(io.BytesIO(data[skipped:]), repeats=True)]
        assert [(h.pattern, h.line, h.exception_on_line) for h in scan_shared(matcher, stream)] == rest and rest
