"""The catalog as the paste page matches it: a small index read first, then only the shards a paste needs.

The whole catalog's patterns are megabytes; a paste holds a handful of its messages. So:
  - the probes: per entry, its literal (every match contains it; the harvest wrote it), or PROBE_CHARS of it
    around the token, under the entry's *key token*: the word ([A-Za-z0-9_]+) inside the literal that the fewest
    entries share, bounded within the literal by non-word characters, so that any text holding the literal holds
    the token as a whole word. An entry whose partial text (generator.match.rules.partial_text) does not begin
    inside its literal has a second probe, the first `partial_min_chars` characters of that text, so that a cut-off
    line finds it too (its shard holds the entry under both tokens). A token's shard is crc32(token) % MESSAGE_SHARDS.
  - `index.json` (routes: catalog_match_index), read when the page opens: `always`, the probes checked on every
    line (`[shard, token, [probe, ...]]`: no key token, or one that more than BIG_BUCKET probes share), the
    token filter (a Bloom filter of the tokens the pieces file: a word it does not hold fetches nothing), each
    project's releases (oldest first), the traceback frame pattern and how many frames are read
    (generator.cli.matchcatalog's, so both engines read alike), and the shard counts (and which site shards
    exist).
  - probe pieces (`catalog_match_shard` with key `p<k>`), fetched for the words a paste holds: piece k holds
    `{shard: {token: [probe, ...]}}` for the shards n with n % PIECES == k.
  - message shards (`catalog_match_shard` with key `m<n>`): `{token: [entry, ...]}`, entries in the order of
    the index's literals: the JavaScript pattern, template, exception, ranking facts, release ranges and the
    raise sites a card names (card_sites: one for each release; as indices into the project's releases) and the
    curated records linked to it (links.json).
  - site shards (key `t<n>`): `"<file name>:<line>" -> [[entry id, path, from, to, statement head], ...]`, every
    raise site (its project: the id's part before "/"), for reading traceback frames (`File ".../vllm/x.py", line
    N`) as generator.cli.matchcatalog does.
The browser tokenizes a paste on [^A-Za-z0-9_]+, looks up its tokens, keeps the entries whose literal the line
holds, and only then fetches their shards. Output is deterministic: compact JSON with sorted keys.
"""

from __future__ import annotations

import base64
import math
import re
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from .export import encode_file, encode_json
from ..catalog.query import FRAME, MAX_FRAMES, statement_head
from ..catalog.query import entry_title
from ..match.rules import RULES, exception_name, partial_text
from ..catalog.reader import Catalog, Entry, Project, load_catalog, read_links
from ..match.portable import analyse, js_source_fast, prefilter_literal
from ..routes import api_path

PROBE_CHARS = 24  # of a literal, the index keeps this much around its key token (a match holds the whole literal)
PIECES = 2048  # probe pieces: a paste's words that the token filter passes fetch one each (~0.4 kB), not the whole index
FILTER_FALSE = 0.01  # of the words no piece files, the share the token filter lets through (a piece fetched for nothing)
BIG_BUCKET = 24  # a token more probes share than this is checked on every line, by a rarer 4-character piece
MESSAGE_SHARDS = 8192  # ~8 entries a shard (67,000 entries): a paste's few messages cost a few kB each
SITE_SHARDS = 16384  # a traceback's frames fetch one small shard each (every raise site of every release: ~200,000 keys)
WORD = re.compile(r"[A-Za-z0-9_]+")


def key_token(literal: str, shared: Counter, tokens: set[str] | None = None) -> str:
    """The literal's key token: of its inner words (a non-word character on each side, within the literal), the
    one the fewest entries share (`shared`), then the longest, then the first in order; "" when it has none."""
    best = ""
    for token in inner_tokens(literal) if tokens is None else tokens:
        if not best or (shared[token], -len(token), token) < (shared[best], -len(best), best):
            best = token
    return best


def inner_tokens(literal: str) -> set[str]:
    return {m.group() for m in WORD.finditer(literal) if m.start() > 0 and m.end() < len(literal)}


def probe(literal: str, token: str) -> str:
    """What the index keeps of a literal: at most PROBE_CHARS of it around its key token (its start when it has
    none). Any text that holds the literal holds the probe; the pattern, run next, holds to the whole of it."""
    if len(literal) <= PROBE_CHARS:
        return literal
    if not token:
        return literal[:PROBE_CHARS]
    start = next(m.start() for m in WORD.finditer(literal) if m.group() == token and m.start() > 0 and m.end() < len(literal))
    lo = max(0, min(start - (PROBE_CHARS - len(token)) // 2, len(literal) - PROBE_CHARS))
    return literal[lo:max(start + len(token), lo + PROBE_CHARS)]


def shard_of(key: str, count: int) -> int:
    return zlib.crc32(key.encode("utf-8")) % count


def _filter_bits(token: str, bits: int, hashes: int) -> list[int]:
    data = token.encode("utf-8")
    h1, h2 = zlib.crc32(data), zlib.crc32(b"#" + data)
    return [(h1 + i * h2) % bits for i in range(hashes)]


def token_filter(tokens: set[str]) -> dict[str, Any]:
    """A Bloom filter of the tokens the probe pieces file: the page fetches a piece only for a word of the paste
    the filter holds (every filed token, and about FILTER_FALSE of the others). Bit i is bit i % 8 of byte i // 8
    of the base64 `data`; a token's bits are (crc32(token) + j * crc32("#" + token)) % bits for j < hashes."""
    n = max(1, len(tokens))
    bits = max(64, math.ceil(-n * math.log(FILTER_FALSE) / math.log(2) ** 2 / 8) * 8)
    hashes = max(1, round(bits / n * math.log(2)))
    data = bytearray(bits // 8)
    for token in sorted(tokens):
        for b in _filter_bits(token, bits, hashes):
            data[b >> 3] |= 1 << (b & 7)
    return {"bits": bits, "hashes": hashes, "data": base64.b64encode(bytes(data)).decode("ascii")}


def filter_holds(filt: dict[str, Any], token: str, data: bytes | None = None) -> bool:
    """Whether the token filter (token_filter's document) may hold `token` (`data`: its decoded bytes, when kept)."""
    data = data if data is not None else base64.b64decode(filt["data"])
    return all(data[b >> 3] >> (b & 7) & 1 for b in _filter_bits(token, filt["bits"], filt["hashes"]))


def _literal(entry: Entry) -> tuple[str, bool]:
    """The prefilter literal of an entry, as the matcher uses it (generator.bundle.knowledge.catalog_pattern): the
    harvest's when usable, else the pattern's longest analysed literal; and whether it is case-folded."""
    d = entry.data
    literal = d.get("literal")
    if isinstance(literal, str) and len(literal) >= 4 and isinstance(d.get("specificity"), int) and not d["pattern"].startswith("(?i)"):
        return literal, False
    a = analyse(d["pattern"], backtracking=False)  # the build checked the catalog (CAT005) before making this
    return prefilter_literal(a.literals), a.ignore_case


def card_sites(entry: Entry) -> list:
    """The sites a card names: for each release, the first site (in the catalog's order) that has the message
    there, so "raised at" can be said for any release asked for. A message raised from many files keeps the
    rest for the traceback fit only (the site shards hold every site)."""
    chosen: list = []
    for first, last in entry.ranges:
        for release in range(first, last + 1):
            site = next((s for s in entry.sites if s.start <= release <= s.end), None)
            if site is not None and not any(site is c for c in chosen):
                chosen.append(site)
    return [s for s in entry.sites if any(s is c for c in chosen)]  # in the catalog's order


def _entry_json(project: Project, entry: Entry, records: list[str]) -> dict[str, Any]:
    d = entry.data
    js, flags, specificity = js_source_fast(d["pattern"]), "u", d.get("specificity")
    if js is None or not isinstance(specificity, int):  # a shape the harvest does not write: read it whole
        a = analyse(d["pattern"], backtracking=False)  # the build checked the catalog (CAT005) before making this
        js, flags = a.js_source, a.js_flags
        specificity = specificity if isinstance(specificity, int) else a.specificity
    out: dict[str, Any] = {
        "id": entry.id,
        "js": js,
        "template": d["template"],
        "specificity": specificity,
        "releases": [list(r) for r in entry.ranges],
        # [first, last, path, line], plus each stretch [first, last, line] when the statement moved in the range
        "sites": [[s.start, s.end, s.path, s.line] + ([[list(x) for x in s.stretches]] if s.stretches else []) for s in card_sites(entry)],
    }
    title = entry_title(d["template"])
    if title != d["template"]:  # the page reads a missing title as the template
        out["title"] = title
    if flags != "u":
        out["flags"] = flags
    pattern = d["pattern"]
    if pattern.startswith("^") or (pattern.endswith("$") and not pattern.endswith("\\$")):
        out["anchored"] = True
    exception = d.get("exception") if isinstance(d.get("exception"), str) else None
    if exception:
        out["exception"] = exception
        name = exception_name(exception) or ""
        if name != exception:  # the page reads a missing name as the exception itself
            out["exception_name"] = name
    for key in ("tier", "kind", "level"):
        if isinstance(d.get(key), str):
            out[key] = d[key]
    if records:
        out["records"] = records
    return out


def _probes(entry: Entry, literal: str, folded: bool) -> list[str]:
    """The texts an entry is found by on a line: its literal, and its partial text's head when the literal does not
    hold it (a cut-off line may stop before the literal)."""
    if folded:
        return [literal]
    head = partial_text(entry.data["template"])[:RULES["partial_min_chars"]]
    return [literal] if not head or head in literal else [literal, head]


def match_documents(catalog: Catalog, links: dict[str, list[str]]) -> dict[str, Any]:
    """The index, every probe piece and every shard, as documents: {"index": ..., "p<k>": ..., "m<n>": ...,
    "t<n>": ...}."""
    literals = {e.id: _literal(e) for e in catalog.entries()}
    found_by = {e.id: _probes(e, *literals[e.id]) for e in catalog.entries()}
    tokens = {text: inner_tokens(text) for e_id, texts in found_by.items() if not literals[e_id][1] for text in texts}
    shared = Counter(t for e_id, texts in found_by.items() if not literals[e_id][1] for text in texts for t in tokens[text])
    groups: list[dict[str, list[str]]] = [{} for _ in range(MESSAGE_SHARDS)]
    shards: dict[int, dict[str, list[dict[str, Any]]]] = {}
    found: dict[tuple[str, str], list[str]] = {}  # (entry id, token) -> the texts it is found by under that token
    at: dict[str, list[list[Any]]] = {}  # "<file name>:<line>" -> its raise sites
    for slug, project in sorted(catalog.projects.items()):
        for entry in project.entries:
            folded = literals[entry.id][1]
            for text in found_by[entry.id]:
                token = "" if folded else key_token(text, shared, tokens[text])
                found.setdefault((entry.id, token), []).append(text)  # both texts under one token: listed twice
                n = shard_of(token, MESSAGE_SHARDS)
                groups[n].setdefault(token, [])
                shards.setdefault(n, {}).setdefault(token, []).append(_entry_json(project, entry, links.get(entry.id, [])))
            for s in entry.sites:
                head = statement_head(s.statement)
                name = s.path.rsplit("/", 1)[-1]
                for first, last, line in s.spans():  # the releases in which the statement is at each line
                    at.setdefault(f"{name}:{line}", []).append([entry.id, s.path, first, last, head])
    sites: dict[int, dict[str, list[list[Any]]]] = {}
    for key, items in at.items():
        sites.setdefault(shard_of(key, SITE_SHARDS), {})[key] = items
    for shard in (*shards.values(), *sites.values()):  # one order whatever the projects' order: by id
        for key, items in shard.items():
            if len(items) > 1:
                order = sorted(range(len(items)), key=lambda i: items[i]["id"] if isinstance(items[i], dict) else items[i])
                shard[key] = [items[i] for i in order]
    always: list[list[Any]] = []
    pieces: dict[int, dict[str, dict[str, list[str]]]] = {}
    for n, group in enumerate(groups):
        for token in sorted(group):
            seen: Counter = Counter()  # an entry listed twice under a token: its texts in order
            probes = []
            for e in shards[n][token]:
                probes.append(probe(found[e["id"], token][seen[e["id"]]], token))
                seen[e["id"]] += 1
            if token == "" or len(probes) > BIG_BUCKET:
                always.append([n, token, probes])
            else:
                pieces.setdefault(n % PIECES, {}).setdefault(str(n), {})[token] = probes
    index = {
        "projects": {slug: {"releases": p.releases} for slug, p in sorted(catalog.projects.items())},
        "always": always,
        "pieces": PIECES,
        "token_filter": token_filter({token for piece in pieces.values() for group in piece.values() for token in group}),
        "pieces_written": sorted(pieces),
        "message_shards": MESSAGE_SHARDS,
        "site_shards": SITE_SHARDS,
        "site_shards_written": sorted(sites),  # the others would be empty: no raise site hashes to them
        "frame": FRAME.pattern.decode("ascii"),
        "max_frames": MAX_FRAMES,
        "entries": len(literals),
    }
    out: dict[str, Any] = {"index": index}
    out.update({f"p{k}": doc for k, doc in sorted(pieces.items())})
    out.update({f"m{n}": doc for n, doc in shards.items()})
    out.update({f"t{n}": doc for n, doc in sites.items()})
    return out


def catalog_match_files(catalog_dir: Path, catalog: Catalog | None = None) -> dict[str, bytes]:
    """The browser's catalog match data for the catalog in `catalog_dir` (data/catalog; `catalog` when it is
    already loaded): API path (relative to the API root) -> bytes. No catalog there: no files."""
    catalog = catalog if catalog is not None else load_catalog(Path(catalog_dir))
    if not catalog.projects:
        return {}
    docs = match_documents(catalog, read_links(Path(catalog_dir)))
    files = {api_path("catalog_match_index"): encode_json(docs.pop("index"))}
    for key, doc in docs.items():
        path = api_path("catalog_match_shard", key)
        files[path] = encode_file(path, doc)
    return dict(sorted(files.items()))
