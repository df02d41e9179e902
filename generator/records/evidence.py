"""Numbers counted from evidence, never typed: how often each fix worked in the public reports a record links.

A record lists `reports` (URL, outcome, date, which fix). From them, for every solution, workaround and dead end:
how many reports, how many say it worked, failed or partly worked, the share that counts (worked, for a fix;
failed, for a dead end) and its Wilson 95% interval. A share is shown as a bar only from MIN_REPORTS_FOR_BAR
reports; below that, pages say "worked in 2 of 3 reports" with the links and draw nothing. Without reports there
is no number at all, only the advice. Pages, the API and the matcher all take their numbers from here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .model import Record

# From this many reports a share is drawn as a bar; fewer are shown as counts only (a 1-of-1 "100%" bar would
# claim a certainty one report cannot give).
MIN_REPORTS_FOR_BAR = 5
Z_95 = 1.959963984540054
KINDS = ("solutions", "workarounds", "dead_ends")


@dataclass(frozen=True)
class Tally:
    """The reports about one fix."""

    fix: str
    worked: int = 0
    failed: int = 0
    partial: int = 0

    @property
    def reports(self) -> int:
        return self.worked + self.failed + self.partial

    @property
    def counted(self) -> int:
        """The reports that make the share: failures for a dead end, successes for anything else."""
        return self.failed if self.fix.startswith("/dead_ends/") else self.worked

    @property
    def share(self) -> float | None:
        return self.counted / self.reports if self.reports else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson(self.counted, self.reports)

    @property
    def drawn(self) -> bool:
        return self.reports >= MIN_REPORTS_FOR_BAR

    def as_json(self) -> dict[str, Any]:
        low, high = self.interval or (0.0, 0.0)
        return {
            "reports": self.reports, "worked": self.worked, "failed": self.failed, "partial": self.partial,
            "share": round(self.share or 0.0, 4), "interval_95": [round(low, 4), round(high, 4)],
        }


def wilson(k: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n trials (None without trials)."""
    if n <= 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def tallies(record: Record) -> dict[str, Tally]:
    """JSON pointer of each fix that has reports -> its tally, in the record's order."""
    counts: dict[str, dict[str, int]] = {}
    for report in record.reports:
        counts.setdefault(report.fix, {"worked": 0, "failed": 0, "partial": 0})[report.outcome] += 1
    order = {f"/{kind}/{i}": (k, i) for k, kind in enumerate(KINDS) for i in range(len(getattr(record, kind)))}
    return {fix: Tally(fix, **c) for fix, c in sorted(counts.items(), key=lambda item: order.get(item[0], (9, 0)))}


def overall(record: Record) -> Tally:
    """All reports about the record's solutions and workarounds together (dead ends are not fixes)."""
    parts = [t for fix, t in tallies(record).items() if not fix.startswith("/dead_ends/")]
    return Tally("/fixes", sum(t.worked for t in parts), sum(t.failed for t in parts), sum(t.partial for t in parts))


def best_fix(record: Record) -> tuple[int, Tally]:
    """The solution to show first, chosen by counted evidence: the most "worked" reports, then the fewest "failed",
    then the record's order; with its tally (all zero when no report names it)."""
    found = tallies(record)
    counts = [found.get(f"/solutions/{i}", Tally(f"/solutions/{i}")) for i in range(len(record.solutions))]
    best = min(range(len(counts)), key=lambda i: (-counts[i].worked, counts[i].failed, i))
    return best, counts[best]


def best_fix_document(record: Record) -> dict[str, Any]:
    """What the API says of the best fix: which solution (a JSON pointer into the record), its reports, and the
    commands it spells out (`commands`), for an answer card to copy."""
    index, t = best_fix(record)
    return {"fix": f"/solutions/{index}", "worked": t.worked, "failed": t.failed, "partial": t.partial, "reports": t.reports,
            "commands": commands(record.solutions[index])}


# What a fix's text spells out that a reader types: a code span, a `pip install ...`, an environment variable set
# to a value, a command-line flag (with its `=value`, or a number after it). In the order they appear, once each.
_COMMAND = re.compile(
    r"`(?P<code>[^`\n]{2,200})`"
    r"|(?P<pip>\bpip install(?: +(?!(?:and|or|the|with|in|to|then|again|first|from|for|it|on)\b)"
    r"(?:-[-\w]+|[a-z0-9][a-z0-9_.\[\],<>=~!-]*(?<![.,;])(?![A-Za-z0-9_])|\"[^\"\n]{1,80}\"|'[^'\n]{1,80}')){1,6})"
    r"|(?<![\w/.-])(?P<env>[A-Z][A-Z0-9_]{2,}=[^\s,;)'\"`]+(?<![.]))"
    r"|(?<![\w-])(?P<flag>--[a-z0-9][a-z0-9_.-]*[a-z0-9](?:=[^\s,;)'\"`]+(?<![.])| \d+(?:\.\d+)?\b)?)")


def commands(text: str) -> list[str]:
    """The commands, variables and flags a fix's text spells out (see _COMMAND), at most five."""
    found: list[str] = []
    for m in _COMMAND.finditer(text):
        kind, value = next((k, v) for k, v in m.groupdict().items() if v)
        if kind == "code" and not re.search(r"[ =]|^-", value.strip()):
            continue  # a name in a code span (a config key, a class) is not something to run
        if value not in found:
            found.append(value.strip())
    # a flag that a longer command spells out already (`--max-model-len` in `--max-model-len 32768`) goes
    return [c for c in found if not any(c != other and c in other for other in found)][:5]


def evidence_document(record: Record) -> dict[str, Any]:
    """What the API adds to a record: each fix's tally (only fixes with reports), and all fixes together."""
    found = tallies(record)
    if not found:
        return {}
    return {"by_fix": {fix: t.as_json() for fix, t in found.items()}, "fixes": overall(record).as_json(), "min_reports_for_bar": MIN_REPORTS_FOR_BAR}
