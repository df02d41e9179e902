"""The catalogue of check codes: one entry per code, in families.

Codes are stable: a code is never reused for another meaning. CONTRIBUTING.md lists every code (a test keeps it
honest) and `tests/fixtures/invalid/<CODE>-*.yaml` holds one failing record per code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    hint: str


FAMILIES = {
    "YML": "loading: the file as YAML",
    "SCH": "schema: the record against schema/error.schema.json",
    "REC": "record: facts inside one record",
    "XRC": "cross-record: facts across the dataset",
    "RGX": "regex: the pattern and its examples",
    "SRC": "source: the pinned snippet",
    "TRN": "translation: the Chinese fields",
    "CAT": "catalog: the harvested catalog in data/catalog",
}

_ALL = [
    Code("YML001", "yaml-syntax", "error", "fix the YAML syntax at the position shown; quote strings that contain `: ` or start with a special character"),
    Code("YML002", "not-utf8", "error", "save the file as UTF-8 (without a byte-order mark)"),
    Code("YML003", "file-too-large", "error", "a record is one error: keep the file under 512 KiB, trim long snippets and lists"),
    Code("YML004", "duplicate-key", "error", "remove one of the two keys; YAML would silently keep only the last"),
    Code("YML005", "anchor-alias", "error", "write the value out in full; anchors (&), aliases (*) and merge keys (<<) are not allowed in records"),
    Code("YML006", "unsupported-tag", "error", "remove the `!tag`; records hold only plain strings, numbers, booleans, lists and mappings"),
    Code("YML007", "not-a-mapping", "error", "a record file holds one mapping of keys (`id: ...`, `repo: ...`); start from `errdex new <id>`"),
    Code("YML008", "too-deep", "error", "records nest at most 32 levels; flatten the structure"),
    Code("YML009", "non-string-key", "error", "keys are snake_case names; quote a key that YAML reads as a number, boolean or null"),
    Code("YML010", "byte-order-mark", "error", "save the file as UTF-8 without a byte-order mark"),
    Code("YML011", "symbolic-link", "error", "replace the link with the file or folder itself: records are plain files inside data/errors"),
    Code("SCH001", "unknown-key", "error", "check the spelling against schema/error.schema.json; unknown keys are not allowed"),
    Code("SCH002", "missing-key", "error", "add the required key (in a file made by `errdex new`, uncomment its `#:` example and make it true)"),
    Code("SCH003", "wrong-type", "error", "give the value the type the schema expects; quote text that YAML reads as a number, date or boolean (e.g. '0.10', 'yes')"),
    Code("SCH004", "value-not-allowed", "error", "use one of the allowed values listed in the message"),
    Code("SCH005", "bad-value", "error", "make the value match the expected format (ids: lowercase a-z, 0-9 and '-', segments joined by '/'; dates: YYYY-MM-DD; urls: http(s) only; commits: 40 hex digits)"),
    Code("SCH006", "out-of-range", "error", "keep the number within the range in the message (rates are fractions from 0 to 1)"),
    Code("SCH007", "bad-length", "error", "shorten or lengthen the text or list to the bounds in the message"),
    Code("REC001", "id-path-mismatch", "error", "the id must equal the file's path under data/errors without `.yaml`; rename the file or fix the id"),
    Code("REC002", "invalid-date", "error", "use a real calendar date in the form YYYY-MM-DD"),
    Code("REC003", "dates-out-of-order", "error", "dates must satisfy first_seen <= last_confirmed <= last_updated"),
    Code("REC004", "example-fix-unchanged", "error", "the `after` code must differ from the `before` code"),
    Code("REC005", "self-reference", "error", "a record cannot relate to, alias or supersede itself; remove the reference"),
    Code("REC006", "hidden-character", "error", "remove the invisible or text-direction character (zero-width space, right-to-left override, byte-order mark, soft hyphen); type the text plainly"),
    Code("REC007", "unsafe-character", "error", "remove the control character, surrogate or non-character named in the message (C0 controls but tab and line feed, DEL, C1 controls U+0080-U+009F, U+FFFE, U+FFFF, ...); error text never needs one"),
    Code("REC008", "date-in-future", "error", "dates say when something happened: use today's date or an earlier one"),
    Code("REC009", "report-about-missing-fix", "error", "point `fix` at an existing solution, workaround or dead end, e.g. /solutions/0 (counting from 0)"),
    Code("REC010", "example-provenance", "error", "give each example either `seen: <URL of the public report where the line was posted>` or `constructed: true` when you made it from the template"),
    Code("REC011", "tier-not-backed", "error", "say what backs the tier: source_verified needs source.release.checked (the date the snippet was compared with its release); reproduced and maintainer_confirmed need provenance.confirmation (a public link); otherwise use community"),
    Code("REC012", "artifact-address", "error", "an artifact fetched from an address needs its sha256 and no package (the package index would be asked instead), and the address must end with the artifact's file name"),
    Code("REC013", "unknown-category", "warning", "file the record under one of the categories the site names (generator.records.model.CATEGORIES: resource_error, configuration_error, runtime_error, ...); ask in the pull request if none fits"),
    Code("XRC001", "duplicate-id", "error", "ids and aliases are unique across the dataset and never reused; choose another id or drop the alias"),
    Code("XRC002", "unresolved-reference", "error", "point the reference at an existing record id (or alias); check for typos"),
    Code("XRC003", "supersede-cycle", "error", "superseded_by chains must end at a live record; break the cycle"),
    Code("XRC004", "related-to-retired", "warning", "point the related link at the record that superseded the retired one"),
    Code("XRC005", "removed-id", "error", "ids and aliases are forever: restore the record and retire it with superseded_by, or keep the old id under the new record's aliases"),
    Code("XRC006", "project-spelled-two-ways", "error", "write the project exactly as the other records do (GitHub names are case-insensitive: one project, one spelling)"),
    Code("XRC007", "duplicate-error", "error", "one error, one record: merge the two (keep one, move the other's id to its aliases and its examples over, `errdex import` does this for imports), or link them with related.confused_with when they are different errors that look alike, or retire one with superseded_by"),
    Code("RGX001", "regex-invalid", "error", "fix the pattern; escape literal characters such as ( ) [ ] . * + ? with a backslash"),
    Code("RGX002", "example-not-matched", "error", "the pattern must find every example message: widen the pattern or correct the example"),
    Code("RGX003", "counter-example-matched", "error", "the pattern must not find any counter-example: make the pattern more specific"),
    Code("RGX004", "no-examples", "warning", "add at least one real instance of the error under error.examples, with its values filled in"),
    Code("RGX005", "unportable-regex", "error", "write the pattern in the subset RE2 and JavaScript share (no look-around, back-references, named groups, inline flags other than a leading (?i), \\A \\z \\Q) and without the shapes that make browsers backtrack (nested repetition, repeated alternatives that overlap, overlapping repetitions in a row); the message names the construct, its position and the fix"),
    Code("RGX006", "pattern-too-broad", "error", "anchor the pattern on the message's fixed words (at least 4 literal characters every match contains, e.g. `Failed to allocate (\\d+) blocks`), not on `.*` or `\\w+` alone"),
    Code("RGX007", "slow-backtracking", "error", "browsers run patterns with a backtracking engine, and this one takes far longer than the text is long: rewrite the part named so that each piece of text can be matched one way only (one repetition instead of two in a row, a smaller bound, alternatives that cannot match the same text)"),
    Code("RGX008", "no-real-example", "warning", "add an example seen in a public report (`seen: <URL>`), or say in `error.unseen` where and when you looked for one and found none"),
    Code("SRC001", "snippet-line-count", "error", "the snippet must hold exactly end_line - start_line + 1 lines; re-copy it from the file at the pinned commit"),
    Code("SRC002", "raise-line-outside", "error", "source.line must lie within start_line..end_line (and start_line <= end_line)"),
    Code("SRC003", "snippet-too-long", "error", "quote at most 40 lines around the raise"),
    Code("SRC004", "no-source", "warning", "add a `source` block pinned to a commit so readers can check the code that raises the error"),
    Code("VER001", "version-not-in-catalog", "warning", "the release named does not raise any of the record's catalog messages (data/catalog/links.json): correct the version or its status (`changed` when the wording differs there), or link the entry that holds the release's wording"),
    Code("VER002", "removal-contradicts-catalog", "error", "the catalog has the record's message in the release the record says no longer raises it: correct the release (the catalog's ranges say where the message is raised) or the status"),
    Code("SRC005", "snippet-not-whole-lines", "error", "a snippet is whole lines, the last one with its newline too: write it as a YAML literal block without the strip indicator (no `-` after the block's indicator), which would drop the final newline"),
    Code("SRC101", "source-unavailable", "error", "check source.repo, source.commit (the full 40 hex) and source.path: the file must exist at that commit"),
    Code("SRC102", "snippet-differs", "error", "re-copy the snippet byte for byte from the file at the pinned commit (same indentation, no edits)"),
    Code("SRC103", "snippet-shifted", "error", "the snippet is in the file, at other lines: set start_line, end_line and line to where it stands"),
    Code("SRC104", "message-not-at-line", "warning", "source.line should point at the statement that raises or builds the message; check the line number"),
    Code("SRC105", "fetch-failed", "error", "the raw-file host could not be reached; check --base-url and the network, or verify from a local checkout with --git"),
    Code("SRC106", "release-artifact-differs", "error", "the release artifact is not the file the record was checked in: correct source.release (artifact and sha256) to the published file, and re-check the snippet in it"),
    Code("TRN001", "missing-translation", "warning", "add the Chinese text in the `<field>_zh` key beside the English one"),
    Code("TRN002", "zh-structure-mismatch", "error", "the `_zh` field must mirror the English one: same list length, same mapping keys, and an English field beside it"),
    Code("TRN003", "zh-not-chinese", "error", "write the `_zh` text in Chinese; it holds no Chinese characters"),
    Code("TRN004", "zh-copy-of-english", "error", "the `_zh` text is the English text copied; translate it"),
    Code("CAT001", "catalog-not-json", "error", "each line of a catalog file is one JSON object; regenerate the file with `errdex harvest` rather than editing it by hand"),
    Code("CAT002", "catalog-schema", "error", "make the entry match schema/catalog.schema.json (the message names the field); `errdex harvest` writes valid entries"),
    Code("CAT003", "catalog-duplicate-id", "error", "an id appears once per catalog file: one entry per normalised template; regenerate the file"),
    Code("CAT004", "catalog-id-mismatch", "error", "the id is the project (the file's name) + '/' + the first 16 hex of sha256(project + NUL + normalised template); regenerate the file"),
    Code("CAT005", "catalog-unportable-pattern", "error", "the pattern must be in the subset RE2 and JavaScript share (generator/match/portable.py); fix the pattern generator in generator/harvest/templates.py"),
    Code("CAT006", "catalog-pattern-too-broad", "error", "a catalog pattern needs fixed text of 4 or more characters and must not match ordinary text; drop the entry or match a longer part of the template"),
    Code("CAT007", "catalog-not-canonical", "error", "write one entry per line as compact JSON with sorted keys, lines sorted by id, LF line ends (what `errdex harvest` writes)"),
    Code("CAT008", "catalog-unknown-release", "error", "every version in releases, sites (and their lines), first and last must be a release of the project in data/catalog/releases.json, ranges oldest to newest; a site's lines start at its `from` and end with its `line`"),
    Code("CAT009", "catalog-pattern-misses-template", "error", "the pattern must find its own template (holes filled in); match a stable part of the template"),
    Code("CAT010", "catalog-missing-part", "error", "a catalog folder holds releases.json, projects.yaml and, for each project both name, a regular file <project>.jsonl; restore the missing part (`errdex harvest PROJECT` writes all three) or build with --no-catalog"),
    Code("CAT011", "symbols-invalid", "error", "each line of data/catalog/symbols/<project>.jsonl is one compact JSON object with sorted keys that schema/catalog-symbols.schema.json accepts: the header first, then modules in order, then registries in order; regenerate it with `errdex symbols PROJECT`"),
    Code("CAT012", "symbols-releases", "error", "a symbol index belongs to a project projects.yaml configures, its header lists that project's releases as releases.json does, and every range stays within them; regenerate it with `errdex symbols PROJECT` after `errdex harvest PROJECT`"),
    Code("CAT013", "catalog-literal-not-the-patterns", "error", "`literal` is what the matcher's prefilter looks for in a line before it tries the pattern, so it must be the pattern's own: its longest fixed text, spaces included, at most 64 characters (generator.match.portable.prefilter_literal); regenerate the file with `errdex harvest`"),
    Code("CAT101", "catalog-site-not-found", "error", "re-extracting the release's file did not find the entry at the recorded path and line; re-harvest the project (`errdex harvest PROJECT`)"),
    Code("CAT102", "catalog-source-not-cached", "warning", "the release's source is not in the cache: verify with --release to fetch it (or pass the --cache that holds it)"),
    Code("TRN005", "stale-translation", "warning", "bring the Chinese up to date with the English, then run `errdex mark-translated <file>` to record the review"),
]

CODES: dict[str, Code] = {c.code: c for c in _ALL}
