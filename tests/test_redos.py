"""Patterns that would hang a browser: refused by their shape (RGX005) and by running them (RGX007).

The slow shapes below are the classes, several spellings each; every one must be refused by the structural rule
and found slow by the backtracking run, independently, so that either alone would have caught it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from generator.cli import main
from generator.checks.pipeline import check
from generator.match.portable import analyse
from generator.match.backtrack import Backtracker, attacks, slow_input

MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"

SLOW = [
    # a repeated alternation whose branches can match the same character
    r'File "((?:\w|[^"])*)"!',
    r"(?:\d|\w)*!",
    r"(?:a|a)*!",
    r"(?:[a-z]|[a-f0-9])+!",
    r"(?i)error: (?:[A-Z]|[a-z])+!",  # the same once case is folded
    r"((?:ab|a)b?)+!",
    r"(?:a|b|ab)*c",
    r"(?:[^,]|,?\d)+;",
    # nested repetition, counted or not
    r"(?:a{1,20}){1,20}!",
    r"(a{2,}){3}!",
    r"(a+)+$",
    r"(\w+\s?)+$",
    r"(\d+|\d+\.\d+)+!",
    r"(?:a?b?)*c",
    # unbounded repetitions in a row that overlap, with nothing only one of them matches between
    r"\d*\d*\d*\d*\d*\d*\d*\d*!",
    r"\w+\d+!",
    r".*.*!",
    r"[a-z]+\w*!",
    r".*x.*!",
    r"\s*[\t ]*\w+!",
    r"Loading (.+)(.+) failed",
    r"token=(\w+)(\d*)!",
    r'path "(.*)/(.*)"!',
    r"(?:\w+)?\w+:",
    r"value ([0-9a-f]*)(\d+) end",
]

# Refused although V8 happens to run them fast (it cuts a counted loop of `x?` short): the rules are about shapes,
# not about one engine's optimisations.
ALSO_REFUSED = [r"(?:x?){30}x{30}", r"(?:\d{1,3}){1,10}!"]

# Realistic patterns of the same families that are fine: a separator only one side matches, bounded pieces that
# end in a character their start cannot match, overlapping repetitions with nothing after them that can fail.
SAFE = [
    r"Failed to allocate (\d+) blocks for request (\S+)",
    r"NCCL error in: (\S+):(\d+), ([^\n]+)(?:\n([^\n]*))?",
    r"([\s\S]*?)Native code method attempted to call: lib\.(\w+)\(\)",
    r"Model architectures (\[.*?\]) are not supported for now\. Supported architectures: (.*)",
    r"(?:(\d{3}) Client Error\.[\s\S]*?)?Cannot access gated repo for url (\S+)\.",
    r"Unrecognized configuration class (.+?) for this kind of AutoModel: (\w+)\.",
    r"listening on (?:\d{1,3}\.){3}\d{1,3}:(\d+)",
    r"shape \[(\d+)(?:, (\d+))?\] is invalid",
    r"(\w+)\.(\w+) is deprecated",
    r"(?:x\d{1,3})+ blocks",
    r"(?i)cuda out of memory\. tried to allocate ([\d.]+) (?:MiB|GiB)",
    r"cannot load (.*) from (.*)",
]


def _slow_shapes(pattern: str) -> list:
    return [p for p in analyse(pattern).problems if p.slow]


@pytest.mark.parametrize("pattern", SLOW + ALSO_REFUSED)
def test_slow_shapes_are_refused_by_their_structure(pattern):
    shapes = _slow_shapes(pattern)
    assert shapes, pattern
    for shape in shapes:
        assert shape.construct and shape.hint and 0 <= shape.pos < len(pattern)


@pytest.mark.parametrize("pattern", SLOW + ALSO_REFUSED)
def test_slow_shapes_are_found_by_running_them(pattern):
    a = analyse(pattern)
    assert a.tree is not None
    assert slow_input(a.tree, a.ignore_case) is not None, pattern


@pytest.mark.parametrize("pattern", SAFE)
def test_realistic_patterns_are_accepted(pattern):
    a = analyse(pattern)
    assert a.portable, (pattern, a.problems)
    assert slow_input(a.tree, a.ignore_case) is None, pattern


def test_every_record_passes_the_backtracking_run():
    result = check()
    assert not result.failed
    for r in result.records:
        a = analyse(r.error.regex)
        assert slow_input(a.tree, a.ignore_case) is None, r.id


def _validate(tmp_path: Path, capsys, regex: str) -> list[dict]:
    text = MINIMAL.read_text(encoding="utf-8")
    old = "  regex: 'Failed to allocate (\\d+) blocks for request (\\S+)'"
    text = text.replace(old, "  regex: '" + regex.replace("'", "''") + "'")
    path = tmp_path / "demo" / "minimal.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path), "--root", str(tmp_path), "--format", "json"]) == 1
    return json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.parametrize("regex, construct, pos", [
    (r'Failed to allocate File "((?:\w|[^"])*)"!', r'an alternation `\w|[^"]` whose branches `\w` and `[^"]` can both match', 29),
    (r"Failed to allocate (?:a{1,20}){1,20}!", "nested repetition: `(?:a{1,20}){1,20}` repeats `a{1,20}`", 19),
    (r"Failed to allocate (?:\d|\w)*!", r"an alternation `\d|\w` whose branches `\d` and `\w` can both match", 22),
    (r"Failed to allocate \d*\d*\d*\d*\d*\d*\d*\d*!", r"repetitions `\d*` and `\d*` in a row", 22),
])
def test_validate_names_the_construct_its_position_and_the_fix(tmp_path, capsys, regex, construct, pos):
    findings = _validate(tmp_path, capsys, regex)
    first = findings[0]
    assert first["code"] == "RGX005"
    assert construct in first["message"] and f"at position {pos}" in first["message"], first["message"]
    assert "backtracking engine" in first["message"] and first["hint"]


def test_large_bounds_are_found_by_running(tmp_path, capsys):
    findings = _validate(tmp_path, capsys, r"Failed to allocate (\d{1,500}\d{1,500}) blocks for request (\S+)")
    assert [f["code"] for f in findings] == ["RGX007"]
    assert r"`\d{1,500}` repeated 16, 32, 64 times" in findings[0]["message"]


def test_the_step_count_is_the_work_of_a_backtracking_engine():
    a = analyse(r"(?:\d|\w)*!")
    engine = Backtracker(a.tree, False, 10**9)
    steps = [engine.attempt("1" * n) for n in (8, 9, 10)]
    assert steps[1] > 1.9 * steps[0] and steps[2] > 1.9 * steps[1]  # doubles with each character
    a = analyse(r"(?i)FAILED to allocate (\d+)")
    assert Backtracker(a.tree, True, 1000).attempt("failed to allocate 12") < 100


def test_the_slow_shapes_are_slow_in_v8_and_the_safe_ones_are_not():
    """What the step count stands for: V8 (the browser's engine, in node) on the same inputs, pumped further."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cases = []
    for pattern in SLOW:
        a = analyse(pattern)
        attack = slow_input(a.tree, a.ignore_case).attack
        # exponential shapes show on short texts (a bounded one only there), polynomial ones on long texts
        cases += [[pattern, a.js_source, a.js_flags, attack.text(n)] for n in (32, 50_000)]
    safe_cases = []
    for pattern in SAFE:
        a = analyse(pattern)
        safe_cases += [[pattern, a.js_source, a.js_flags, attack.text(1000)] for attack in attacks(a.tree, a.ignore_case)]
    # vm's timeout interrupts a running regular expression: a slow one stops at 200 ms. The best of three runs
    # counts, so that a busy machine does not make a linear pattern look slow.
    script = """
const vm = require('vm');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function once([p, s, f, t]) {
  const start = process.hrtime.bigint();
  try { vm.runInNewContext('new RegExp(s, f).exec(t)', {s, f, t}, {timeout: 200}); } catch (e) { return 200; }
  return Number(process.hrtime.bigint() - start) / 1e6;
}
console.log(JSON.stringify(cases.map((c) => { const first = once(c); return first >= 200 ? first : Math.min(first, once(c), once(c)); })));"""
    out = subprocess.run([node, "-e", script], input=json.dumps(cases + safe_cases), capture_output=True, text=True, check=True, timeout=60)
    ms = json.loads(out.stdout)
    slow, safe = ms[:len(cases)], ms[len(cases):]
    slowest = {c[0]: max(t for d, t in zip(cases, slow) if d[0] == c[0]) for c in cases}
    assert all(t >= 200 for t in slowest.values()), [(p, t) for p, t in slowest.items() if t < 200]
    assert all(t < 100 for t in safe), [(c[0], repr(c[3][:40]), t) for c, t in zip(safe_cases, safe) if t >= 100]


def _random_pattern(rnd) -> str:
    atoms = ["a", "b", "x", r"\d", r"\w", ".", "[a-z]", "[^x]", r"\s", "[ab]", "(?:ab)", r"\.", ",", " "]
    quantifiers = ["", "", "*", "+", "?", "{1,5}", "{2,}", "*?", "+?", "{3}"]

    def seq(depth: int) -> str:
        out = []
        for _ in range(rnd.randint(1, 4)):
            if depth < 2 and rnd.random() < 0.25:
                body = seq(depth + 1) + ("|" + seq(depth + 1) if rnd.random() < 0.5 else "")
                atom = "(?:" + body + ")"
            else:
                atom = rnd.choice(atoms)
            out.append(atom + rnd.choice(quantifiers))
        return "".join(out)

    return "Z" + seq(0) + "!"


def test_random_patterns_the_checks_accept_are_fast_in_v8():
    """Hidden cases: random patterns of the same parts; whatever passes both checks must run fast in V8 on every
    input the run makes, pumped 30 and 20,000 times."""
    import random

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    rnd = random.Random(20261201)
    cases = []
    for _ in range(600):
        pattern = _random_pattern(rnd)
        a = analyse(pattern)
        if a.portable and a.tree is not None and slow_input(a.tree, a.ignore_case) is None:
            texts = [attack.text(n) for attack in attacks(a.tree, a.ignore_case) for n in (30, 20_000)]
            cases.append([pattern, a.js_source, a.js_flags, texts])
    assert len(cases) > 200
    script = """
const vm = require('vm');
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const slow = [];
for (const [p, s, f, texts] of cases) {
  for (const t of texts) {
    try { vm.runInNewContext('new RegExp(s, f).exec(t)', {s, f, t}, {timeout: 1000}); } catch (e) { slow.push(p); break; }
  }
}
console.log(JSON.stringify(slow));"""
    out = subprocess.run([node, "-e", script], input=json.dumps(cases), capture_output=True, text=True, check=True, timeout=300)
    assert json.loads(out.stdout) == []
