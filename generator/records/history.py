"""Ids are forever: compare the record names (ids and aliases) at an earlier revision with today's.

A record is retired with `superseded_by`, renamed by keeping its old id under `aliases`, and never deleted;
so every name that ever existed must still exist. `errdex validate --base REV` checks that against git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..findings import Finding, make
from .load import RawRecord, parse_text


class HistoryError(Exception):
    """git could not tell what the records were at that revision."""


def _git(args: list[str], data: bytes | None = None) -> bytes:
    done = subprocess.run(["git", *args], input=data, capture_output=True)
    if done.returncode != 0:
        raise HistoryError(done.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return done.stdout


def names_at(rev: str, root: Path) -> dict[str, str]:
    """Every id and alias at `rev` -> the id of the record that held it."""
    if rev.startswith("-"):
        raise HistoryError(f"not a revision: {rev}")
    prefix = root.as_posix().rstrip("/") + "/"
    listing = _git(["ls-tree", "-r", "-z", "--name-only", rev, "--", prefix]).decode("utf-8", "replace")
    paths = [p for p in listing.split("\0") if p.endswith(".yaml")]
    names: dict[str, str] = {}
    if not paths:
        return names
    blobs = _git(["cat-file", "--batch"], "".join(f"{rev}:{p}\n" for p in paths).encode())
    offset = 0
    for path in paths:
        header_end = blobs.index(b"\n", offset)
        size = int(blobs[offset:header_end].split()[2])
        body = blobs[header_end + 1 : header_end + 1 + size]
        offset = header_end + 1 + size + 1
        record_id = path[len(prefix) : -len(".yaml")]
        names[record_id] = record_id
        data, _, _ = parse_text(body.decode("utf-8", "replace"), path)
        for alias in (data or {}).get("aliases") or []:
            if isinstance(alias, str):
                names.setdefault(alias, record_id)
    return names


def removed_names(before: dict[str, str], raws: list[RawRecord], root: Path) -> list[Finding]:
    """XRC005 for every name that existed before and exists no more."""
    now: dict[str, RawRecord] = {}
    for raw in raws:
        if isinstance(raw.data.get("id"), str):
            now[raw.data["id"]] = raw
        for alias in raw.data.get("aliases") or []:
            if isinstance(alias, str):
                now.setdefault(alias, raw)
    findings = []
    for name, old_id in sorted(before.items()):
        if name in now:
            continue
        holder = now.get(old_id)
        if holder is not None:  # the record is still there: it dropped one of its aliases
            findings.append(make("XRC005", holder.path, "/aliases", f"the alias {name!r} existed at the base revision and is gone", holder.pos("/aliases", key=True)))
        else:
            what = f"record {old_id!r}" if name == old_id else f"alias {name!r} of record {old_id!r}"
            findings.append(make("XRC005", (root / f"{old_id}.yaml").as_posix(), "/id", f"the {what} existed at the base revision and is gone"))
    return findings
