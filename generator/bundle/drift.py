"""Drift answers: for a line where Python says the installed release lacks a name (generator/match/drift.py reads
the shape), the releases that have the name, from the symbol index (generator/catalog/symbols.py), and the
command that installs one that fits.

An answer never guesses: a name no harvested release has says so, with the releases searched; a class or function
that several modules or projects define gives one candidate each; a line that does not name its class
(`__init__() got an unexpected keyword argument`) gets no answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..match.drift import MAX_CANDIDATES, MAX_ELSEWHERE, PACKAGE_PATH, PHRASES, PROGRAMS, REGISTRIES, REMOTE_CODE, SHAPES, VERSION_LINE, Ask, asks, label
from ..catalog.symbols import Indexes, SymbolIndex, loaded, runs


def say(key: str, **values: Any) -> dict[str, str]:
    en, zh = PHRASES[key]
    return {"en": en.format(**values), "zh": zh.format(**values)}


@dataclass
class Target:
    index: SymbolIndex
    what: str  # "huggingface_hub.cached_download", "DynamicCache.get_max_length", "model type 'qwen3'"
    has: int
    kind: str  # module | name | member | parameter | key
    elsewhere: list[str] = field(default_factory=list)  # an import: the modules that have the name in the newest release
    phrase: str = "elsewhere"  # the phrase that lists them (auto classes: the classes that load the configuration)
    name: str = ""  # the name that phrase gives (default: the last part of `what`)
    absent: str = ""  # the phrase added when no release has it (a model type: the model needs its own code)


def _project_of(indexes: Indexes, dotted: str) -> SymbolIndex | None:
    head = dotted.split(".")[0]
    for project in indexes.projects():
        if head in indexes.meta[project]["packages"]:
            return indexes[project]
    return None


def _searched(indexes: Indexes, hints: set[str], find) -> list[Target]:
    """`find(index)`'s targets in the projects the log's frames name; in every project when they give none (the
    others are read only then; a project without packages, whose index holds registries only, never)."""
    named = [p for p in indexes.projects(hints) if set(indexes.meta[p]["packages"]) & hints]
    found = [t for p in named for t in find(indexes[p])]
    return found or [t for p in indexes.projects() if p not in named and indexes.meta[p]["packages"] for t in find(indexes[p])]


def _members(ask: Ask, cls: str):
    def find(index: SymbolIndex) -> list[Target]:
        return [Target(index, f"{home}.{cls}.{ask.name}", index.member(home, cls, ask.name), "member")
                for home in index.homes(cls) if cls in index.modules[home].get("classes", {})]
    return find


def _parameters(ask: Ask, owner: str, fn: str):
    def find(index: SymbolIndex) -> list[Target]:
        out = []
        if owner:
            cls = owner.rsplit(".", 1)[-1]
            for home in index.class_homes.get(cls, []):
                has = 0
                for _, params in index.method_params(home, cls, fn):
                    has |= params.get(ask.name, 0) | params.get("**", 0)
                out.append(Target(index, f"{home}.{cls}.{fn}({ask.name}=...)", has, "parameter"))
        else:
            for home in index.function_homes.get(fn, []):
                got = index.function_params(home, fn)
                if got:
                    _, params = got
                    out.append(Target(index, f"{home}.{fn}({ask.name}=...)", params.get(ask.name, 0) | params.get("**", 0), "parameter"))
        return out
    return find


def targets(ask: Ask, indexes: Indexes, hints: set[str]) -> list[Target]:
    if ask.shape in ("import", "module") or (ask.shape == "attribute" and ask.module):
        index = _project_of(indexes, ask.module)
        if index is None:
            return []
        if ask.shape == "module":
            return [Target(index, ask.module, index.module(ask.module), "module")]
        has = index.name(ask.module, ask.name)
        newest = 1 << (len(index.releases) - 1)
        elsewhere = [] if has & newest or ask.shape != "import" else index.importable_from(ask.name, newest)[:MAX_ELSEWHERE]
        return [Target(index, f"{ask.module}.{ask.name}", has, "name", [m for m in elsewhere if m != ask.module])]
    if ask.shape == "attribute":
        cls = ask.cls.rsplit(".", 1)[-1]
        scope = _project_of(indexes, ask.cls) if "." in ask.cls else None
        return _preferred(_members(ask, cls)(scope) if scope else _searched(indexes, hints, _members(ask, cls)))
    if ask.shape == "kwarg":
        owner, _, fn = ask.func.rpartition(".")
        if not owner and fn == "__init__":
            return []  # the line does not say whose __init__
        return _preferred(_searched(indexes, hints, _parameters(ask, owner, fn)))
    if ask.shape in ("registry", "flag"):
        having = [p for p in indexes.projects(hints) if ask.registry in indexes.meta[p]["registries"]]
        if not ask.project:  # a project a shape names (TGI's clap words) answers its own shapes' lines only
            having = [p for p in having if p not in _owned(ask.registry)]
        named = [p for p in having if set(indexes.meta[p]["packages"]) & hints]
        if ask.project in indexes and not named:
            having = [ask.project]  # the project whose message it is, unless the frames name another with it
        elif named:
            having = named
        out = []
        conf = REGISTRIES.get(ask.registry, {})
        absent = conf.get("remote_absent") if conf.get("remote_absent") and REMOTE_CODE.search(ask.text) else conf.get("absent", "")
        for project in having:
            index = indexes[project]
            for key in ask.keys:
                has = index.registry(ask.registry, key)
                if has is not None:
                    others = _instead(index, ask.registry, key, has) if conf.get("elsewhere") else []
                    out.append(Target(index, label(ask.registry, key), has, "key", others, conf.get("elsewhere", "elsewhere"),
                                      key.rsplit(".", 1)[-1], "" if others else absent))
            if out and ask.shape == "registry":
                break
        return _preferred(out) if ask.shape == "flag" else out
    return []


def _instead(index: SymbolIndex, registry: str, key: str, has: int) -> list[str]:
    """For a key the newest release lacks: the keys with its last part that the newest release has, whose first
    part starts with the registry's `among` (the AutoModel classes that load a configuration class), by their first
    part; at most MAX_ELSEWHERE."""
    newest = 1 << (len(index.releases) - 1)
    among = REGISTRIES[registry].get("among", "")
    head, _, tail = key.rpartition(".")
    if has & newest or not head.startswith(among):
        return []
    found = sorted(k.rpartition(".")[0] for k in index.registries[registry]
                   if k.endswith("." + tail) and k != key and k.startswith(among) and index.registry(registry, k) & newest)
    return found[:MAX_ELSEWHERE]


def _owned(registry: str) -> set[str]:
    return {s["project"] for s in SHAPES if s.get("registry") == registry and s.get("project")}


def _preferred(found: list[Target]) -> list[Target]:
    """Those that some release has first (a definition that never had the name is the less likely one), in a
    stable order."""
    return sorted(found, key=lambda t: t.has == 0)


def installed_release(index: SymbolIndex, text: str, wanted: dict[str, str]) -> str | None:
    """The release of the index's project the log comes from: given (`--version`), else named in the log (by its
    pip name, a package, the project or one of its PROGRAMS); "1.4.5" is the release "v1.4.5" of a project whose
    tags have the "v"."""
    given = [n for n in (index.project, index.pip, *index.packages, *PROGRAMS.get(index.project, [])) if n]
    found = next((wanted[n] for n in given if n in wanted), None)
    if found is None:
        names = "|".join(sorted({re.escape(n) for n in given}, key=len, reverse=True))
        m = re.search(VERSION_LINE.format(names=names), text, re.M | re.I)
        found = m.group("v") if m else None
    if found is not None and found not in index.releases and "v" + found in index.releases:
        return "v" + found
    return found


def describe(t: Target, release: str | None, remote: bool) -> dict[str, Any]:
    """One target's answer: the releases that have it, in words and as data, and the command that fits (for a
    project without a pip package, the releases whose image or build to run)."""
    index, releases = t.index, t.index.releases
    pip = index.pip or index.project  # the name the sentences give it
    first, last = releases[0], releases[-1]
    spans = runs(t.has)
    out: dict[str, Any] = {"project": index.project, "symbol": t.what, "kind": t.kind,
                           "searched": {"from": first, "to": last, "releases": len(releases)},
                           "has": [{"from": releases[a], "to": releases[b]} for a, b in spans]}
    text = []
    if not spans:
        out["verdict"] = "absent"
        text.append(say("none", pip=pip, first=first, last=last, what=t.what))
        if t.absent:
            text.append(say(t.absent, name=t.name))
    else:
        a, b = spans[0][0], spans[-1][1]
        text.append(say("added", what=t.what, pip=pip, added=releases[a], before=releases[a - 1]) if a > 0
                    else say("oldest", what=t.what, pip=pip, first=first))
        if len(spans) > 1:
            text.append(say("gaps", spans=_spans(releases, spans)))
        start = spans[-1][0]  # the install command asks for the newest run of releases that have it
        if b < len(releases) - 1:
            text.append(say("removed", removed=releases[b + 1], last_has=releases[b]))
            spec = f">={releases[start]},<{releases[b + 1]}" if start > 0 else f"<{releases[b + 1]}"
            out["verdict"] = "removed"
        else:
            text.append(say("kept", since=releases[start], last=last))
            spec = f">={releases[start]}" if start > 0 else ""
            out["verdict"] = "added" if a > 0 else "present"
        if index.pip:
            command = f"pip install '{index.pip}{spec}'" if spec else f"pip install -U {index.pip}"
            out["install"] = command
            text.append(say("install", command=command))
            if remote:
                text.append(say("remote", pip=pip, command=command))
        else:
            text.append(say("image", pip=pip, spans=_spans(releases, spans)))
    if t.elsewhere:
        out["elsewhere"] = t.elsewhere
        text.append(say(t.phrase, pip=pip, last=last, name=t.name or t.what.rsplit(".", 1)[-1], modules=", ".join(t.elsewhere)))
    if release is not None:
        if release in releases:
            has = bool((t.has >> releases.index(release)) & 1)
            out["installed"] = {"release": release, "has": has}
            text.append(say(("has" if index.pip else "has_image") if has else "lacks", pip=pip, release=release))
        else:
            out["installed"] = {"release": release, "has": None}
            text.append(say("unknown_release", pip=pip, release=release))
    out["text"] = {"en": " ".join(p["en"] for p in text), "zh": _join_zh([p["zh"] for p in text])}
    return out


def _spans(releases: list[str], spans: list[tuple[int, int]]) -> str:
    return ", ".join(releases[x] if x == y else f"{releases[x]}–{releases[y]}" for x, y in spans)


def _join_zh(parts: list[str]) -> str:
    """Chinese sentences run on; one that ends in code (a command) is followed by a space."""
    out = ""
    for part in parts:
        out += part if not out or out.endswith(("。", "）")) else " " + part
    return out


def drift_answers(text: str, indexes: Indexes | dict[str, SymbolIndex] | Callable[[], Indexes],
                  wanted: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The drift answers of a log: one per line that states a missing name the index can speak to. `indexes` may
    be a function that loads them: it is called only when a line has a drift shape."""
    found_asks = asks(text)
    if not found_asks:
        return []
    if callable(indexes):
        indexes = indexes()
    if isinstance(indexes, dict):
        indexes = loaded(indexes)
    if not indexes:
        return []
    hints = set(PACKAGE_PATH.findall(text))
    remote = bool(REMOTE_CODE.search(text))
    out = []
    for ask in found_asks:
        found = targets(ask, indexes, hints)
        if not found:
            continue
        shown = found[:MAX_CANDIDATES]
        answers = [describe(t, installed_release(t.index, text, wanted or {}), remote) for t in shown]
        item: dict[str, Any] = {"line": ask.line, "shape": ask.shape, "candidates": answers}
        if len(found) > 1:
            item["note"] = say("candidates", n=len(found))
        out.append(item)
    return out
