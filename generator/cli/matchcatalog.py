"""`errdex match --catalog`: the records and the catalog entries a log holds, with where and in which releases
each message is raised, and `--version PROJECT==RELEASE` to rank what that release raises.

The matching is the MCP server's (generator/mcp/matching.match_items, over the same knowledge: records, then the
catalog); this module reads the log, the versions and writes the answer as text or JSON.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import IO, Any

from ..bundle.guidewords import guide_words
from ..catalog.query import traceback_fit
from ..match.drift import mentioned
from ..match.output import hit_lines
from ..terminal import json_text, shown
from . import end


def parse_versions(values: list[str] | None) -> dict[str, str] | str:
    """`["vllm==0.11.0", ...]` -> `{"vllm": "0.11.0"}`, or what is wrong with one."""
    out: dict[str, str] = {}
    for value in values or []:
        name, sep, version = value.partition("==")
        if not sep or not name.strip() or not version.strip():
            return f"--version wants PROJECT==RELEASE (e.g. vllm==0.11.0), not {value!r}"
        out[name.strip()] = version.strip()
    return out


def _ranges(c: dict[str, Any]) -> str:
    return shown(", ".join(a if a == b else f"{a} to {b}" for a, b in c.get("releases", [])))


def _catalog_lines(item: dict[str, Any]) -> list[str]:
    """A catalog entry beyond its card: the message (when `hit_lines` has not shown it), where it is raised (at the release asked
    for, else the newest that has it). Catalog text is upstream's: every value goes through `shown`."""
    c, out = item["catalog"], []
    if not any(v is not None for v in item["values"]):
        out.append(f"   message: {shown(item['message'])}")
    for site in c.get("sites", [])[:1]:
        if c.get("fits_frame"):  # the site at a frame of the pasted traceback
            said = site["to"] if site["from"] == site["to"] else f"{site['from']} to {site['to']}"
            out.append(f"   raised at {shown(site['path'])}:{shown(site['line'])} (your traceback's frame; there in {shown(said)})")
        else:
            out.append(f"   raised at {shown(site['path'])}:{shown(site['line'])} (as of {shown(site['to'])})")
    if not item["card"].get("guide"):
        out.append(f"   no record explains it yet: start one with errdex new <project>/<slug> --from-catalog {shown(item['id'])}")
    return out


STATUS_WORDS = {"active": "raised in", "changed": "changed in", "fixed": "fixed in", "unknown": "seen in"}


def _checked(versions: list[list[Any]]) -> str:
    """A record's checked versions by status: "raised in vllm 0.8.5, 0.9.2; fixed in vllm 0.10.0" (a project
    name said once a group)."""
    groups: dict[str, list[str]] = {}
    for version, status in versions:
        if isinstance(version, str):
            groups.setdefault(status if status in STATUS_WORDS else "unknown", []).append(version)
    said = []
    for status, names in groups.items():
        shortened = [names[0]] + [n.split(" ", 1)[1] if " " in n and n.split(" ", 1)[0] == names[0].split(" ", 1)[0] else n
                                  for n in names[1:]]
        said.append(f"{STATUS_WORDS[status]} {', '.join(shown(n) for n in shortened)}")
    return "; ".join(said)


def releases_said(card: dict[str, Any]) -> str:
    """Which harvested releases raise a catalog entry's message, in words: "raised in every release harvested,
    from 0.6.5", "raised since 0.8.0 (to 0.11.0, the newest harvested)", "raised in releases 0.2.0 to 0.3.0"."""
    ranges, (oldest, newest) = card["releases"], card.get("harvested") or (None, None)
    if len(ranges) == 1 and ranges[0][1] == newest:
        if ranges[0][0] == oldest:
            return f"raised in every release harvested, from {shown(oldest)}"
        return f"raised since {shown(ranges[0][0])} (to {shown(newest)}, the newest harvested)"
    return f"raised in releases {_ranges(card)}"


def card_lines(item: dict[str, Any]) -> list[str]:
    """The answer card (generator.bundle.answers): title, what and where it applies, the best fix with its count
    and the commands in it to copy, and the page to read."""
    card = item["card"]
    out = [f"   {shown(card['title'])}"]
    facts = [shown(card["project"])] + ([shown(card["exception"])] if card.get("exception") else [])
    if item["type"] == "record":
        checked = _checked(card.get("releases", []))
        if checked:
            facts.append(checked)
    elif card.get("releases"):
        facts.append(releases_said(card))
    out.append("   " + " · ".join(facts))
    if card.get("partial"):
        out.append("   partial match: the line stops inside this message (cut off, or worded otherwise after it)")
    fix = card.get("fix")
    if fix:
        out += _fix_lines(fix)
        for command in fix.get("commands", [])[:3]:
            out.append(f"   copy: {shown(command)}")
    elif item["type"] != "record":
        out.append("   fix: none yet (no record explains this message)")
    if card.get("from_code"):
        out += code_lines(card["from_code"], card["project"], (item.get("catalog") or {}).get("function"))
    if card.get("guide"):
        out.append(f"   guide: {shown(card['guide'])}")
    if card.get("url"):
        out.append(f"   page: {shown(card['url'])}")
    return out


def code_lines(guide: dict[str, Any], project: str, function: str | None) -> list[str]:
    """An entry's guide (read from the code at a release, generator/harvest/guides.py), in the words of the
    catalog's labels: the guard, the comment above, the function's docstring line, the options it names."""
    words = guide_words(guide, project, function, "en")
    out = [f"   {shown(words.heading)}:"] + [f"     {shown(label)}: {shown(text)}" for label, text, _code in words.rows]
    if words.options:
        out.append(f"     {words.options_label}:")
    for name, default, said in words.options:
        out.append(f"       {shown(name)}{f' ({shown(default)})' if default else ''}{f': {shown(said)}' if said else ''}")
    return out


def _fix_lines(fix: dict[str, Any] | None) -> list[str]:
    """The best fix (by counted reports) and its count: "worked in 3 of 4 reports", or "not yet reported"."""
    if not fix:
        return []
    n = fix["reports"]
    said = f"worked in {fix['worked']} of {n} report{'s' if n != 1 else ''}" if n else "not yet reported"
    text = " ".join(fix["text"].split())
    return [f"   fix ({said}): {shown(text if len(text) <= 300 else text[:299] + '…')}"]


def drift_text(drift: list[dict[str, Any]]) -> str:
    """Each drift answer: the line, then per candidate the symbol and what the symbol index says of it."""
    out = []
    for item in drift:
        out.append(f"version drift (line {item['line']}, {item['shape']}):")
        if item.get("note"):
            out.append(f"   {shown(item['note']['en'])}")
        for c in item["candidates"]:
            out.append(f"   {shown(c['project'])}: {shown(c['symbol'])}")
            out.append(f"   {shown(c['text']['en'])}")
            if c.get("install"):
                out.append(f"   copy: {shown(c['install'])}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def format_text(items: list[dict[str, Any]], found: int, source: str, lines: int, size: int, fits: list[dict[str, Any]] = ()) -> str:
    """The answers shown (`items`, the top of the `found`) as text, after the traceback's fits."""
    out = []
    for fit in fits:
        where = shown(", ".join(f["site"] for f in fit["frames"][:3]))
        if fit["releases"]:
            out.append(f"traceback: fits {shown(fit['project'])} {_ranges(fit)} (frames at {where})")
        else:
            out.append(f"traceback: no single {shown(fit['project'])} release has all of these frames ({where})")
    if fits:
        out.append("")
    for item in items:
        kind = "record" if item["type"] == "record" else "catalog entry"
        out.append(f"{item['rank']}. {shown(item['id'])}  ({kind}, score {item['score']})")
        out += card_lines(item)
        if item["type"] == "record":
            out += hit_lines(item)
            for c in item.get("catalog", [])[:3]:  # each wording the matched text holds (the release's first)
                out.append(f"   raised by {shown(c['project'])} releases {_ranges(c)}")
        else:
            out += hit_lines(item)
            out += _catalog_lines(item)
        out.append(f"   why: {shown('; '.join(item['why']))}")
        out.append("")
    more = f" (showing {len(items)})" if found > len(items) else ""
    count = f"{found} known error{'s' if found != 1 else ''}" if found else "no known error"
    out.append(f"{count} found in {shown(source)}{more}: {lines} line{'s' if lines != 1 else ''}, {size} byte{'s' if size != 1 else ''}")
    return "\n".join(out) + "\n"


def run(file: str, data: Path | None, versions: list[str] | None, top: int, fmt: str, out: IO[str], err: IO[str],
        catalog: bool = True) -> int:
    """Match `file` ("-": standard input) against the records and the catalog (with `catalog` False, the records
    alone), read from the knowledge bundle; exit status as `errdex match`."""
    from ..bundle.read import open_knowledge
    from ..bundle.answers import check_versions, drift_items, fit_sites, ranked_items
    from ..bundle.knowledge import ToolInputError

    wanted = parse_versions(versions)
    if isinstance(wanted, str):
        err.write(f"errdex match: {shown(wanted)}\n")
        return 2
    got: dict[str, Any] = {}

    def read() -> None:
        try:
            got["raw"] = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
        except OSError as exc:
            got["error"] = exc

    # The input is read while the bundle opens: the read waits on the system (0.05-0.1 s for 100 MB), not on Python.
    reading = threading.Thread(target=read, daemon=True)
    reading.start()
    k = open_knowledge(data, err, catalog=catalog)
    if isinstance(k, str):
        err.write(f"errdex match: {shown(k)}\n")
        return 2
    try:
        checked = check_versions(k, wanted)
    except ToolInputError as exc:
        err.write(f"errdex match: {shown(exc)}\n")
        return 2
    source = "standard input" if file == "-" else file
    reading.join()
    if "error" in got:
        exc = got["error"]
        err.write(f"errdex match: cannot read {shown(source)}: {shown(exc.strerror or exc)}\n")
        return 2
    raw = got["raw"]
    import io

    beside: dict[str, Any] = {}

    def frames_and_drift() -> None:  # worked out while a second process scans a big log
        beside["fits"] = traceback_fit(k.catalog, raw, k.site_index) if catalog else []
        beside["drift"] = drift_items(k, raw.decode("utf-8", "replace"), checked) if catalog and mentioned(raw) else []

    items, found, lines, size = ranked_items(k, io.BytesIO(raw), checked, frames_and_drift, slice(top))
    fits, drift = beside["fits"], beside["drift"]
    fit_sites(k, items, fits)
    if fmt == "json":
        body = {"source": source, "lines": lines, "bytes": size, "found": found, "versions": checked,
                "traceback": fits, "drift": drift, "results": items}
        out.write(json_text(body))
    else:
        out.write(drift_text(drift) + format_text(items, found, source, lines, size, fits))
    return end(0 if items or drift else 1)
