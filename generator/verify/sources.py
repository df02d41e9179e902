"""verify-sources: compare each record's snippet with the real file at its pinned commit.

Three ways to read upstream files: a local git checkout or mirror (`git show <commit>:<path>`); only when asked,
the repository host's raw-file URLs; or (`--release`) the release artifact the record names, from the package
index or a folder of saved artifacts (generator.verify.artifacts), checked against its sha256 before it is opened and
only read as an archive: nothing in it is run.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from ..checks.source import snippet_lines
from ..findings import Finding, make
from ..records.load import RawRecord
from . import artifacts
from ..records.model import Record, Source

DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
MAX_FILE_BYTES = 8 * 1024 * 1024
RAISE_WINDOW = 4  # a message may continue a few lines below the line that starts the raise


class Unavailable(Exception):
    """The file (or its commit) is not there."""


class FetchFailed(Exception):
    """The source could not be asked (network, server error)."""


@dataclass
class Sources:
    """Where upstream files come from: local git directories per repo, and optionally the raw-file host."""

    git: dict[str, Path] = field(default_factory=dict)
    online: bool = False
    base_url: str = DEFAULT_BASE_URL
    timeout: float = 20.0
    releases: Path | None = None  # a cache folder: read each snippet's file from its release artifact instead
    find_links: list[Path] = field(default_factory=list)

    def can_read(self, repo: str) -> bool:
        return repo in self.git or self.online

    def can_read_source(self, source: Source) -> bool:
        if self.releases is not None:
            r = source.release
            # A package-index artifact, one published at an address, or a git tag read from a mirror (--git).
            return artifacts.fetchable(r) or bool(r is not None and r.tag and source.repo in self.git)
        return self.can_read(source.repo)

    def read_source(self, source: Source) -> str:
        """The file the snippet comes from: at its commit, or (release mode) inside its release's artifact."""
        if self.releases is None:
            return self.read(source.repo, source.commit, source.path)
        assert source.release is not None
        if not artifacts.fetchable(source.release):
            return self._read_tag(source)
        try:
            return artifacts.read_member(artifacts.fetch(source.release, self.releases, self.find_links), source.path)
        except artifacts.ArtifactMismatch:
            raise
        except artifacts.IndexUnreachable as exc:
            raise FetchFailed(str(exc)) from exc
        except artifacts.ArtifactError as exc:
            raise Unavailable(str(exc)) from exc

    def read(self, repo: str, commit: str, path: str) -> str:
        if repo in self.git:
            return _git_show(self.git[repo], commit, path)
        url = f"{self.base_url.rstrip('/')}/{repo}/{commit}/{urllib.parse.quote(path)}"
        try:
            with urllib.request.urlopen(url, timeout=self.timeout) as response:  # noqa: S310 (http(s) base only)
                body = response.read(MAX_FILE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise Unavailable(f"{url} answered 404: no such file at that commit") from exc
            raise FetchFailed(f"{url} answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise FetchFailed(f"{url} could not be fetched: {getattr(exc, 'reason', exc)}") from exc
        return body.decode("utf-8", "replace")


    def _read_tag(self, source: Source) -> str:
        """The file at the release's git tag, which must be the record's commit."""
        assert source.release is not None and source.release.tag
        gitdir = self.git[source.repo]
        tag = source.release.tag
        if tag.startswith("-"):
            raise Unavailable(f"not a tag git can be asked for: {tag}")
        done = subprocess.run(["git", "-C", str(gitdir), "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}"], capture_output=True, text=True)
        if done.returncode != 0:
            raise Unavailable(f"tag {tag} is not in {gitdir}")
        if done.stdout.strip() != source.commit:
            raise artifacts.ArtifactMismatch(f"tag {tag} is commit {done.stdout.strip()}, not the record's {source.commit}")
        return _git_show(gitdir, source.commit, source.path)


def _git_show(gitdir: Path, commit: str, path: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{40}", commit) or path.startswith("-"):
        raise Unavailable(f"not a commit and path git can be asked for: {commit}:{path}")
    probe = subprocess.run(["git", "-C", str(gitdir), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
    if probe.returncode != 0:
        raise Unavailable(f"commit {commit} is not in {gitdir}")
    shown = subprocess.run(["git", "-C", str(gitdir), "show", f"{commit}:{path}"], capture_output=True)
    if shown.returncode != 0:
        raise Unavailable(f"{path} does not exist at commit {commit[:10]}")
    return shown.stdout.decode("utf-8", "replace")


def message_fragments(message: str) -> list[str]:
    """Literal pieces of a message template worth looking for (the text between `{}` placeholders), longest
    first, cut to 30 characters: code often splits one message over several string literals."""
    parts = sorted((part.strip() for part in re.split(r"\{\}|\n", message)), key=len, reverse=True)
    return [part[:30] for part in parts if len(part) >= 12] or parts[:1]


def _short_diff(expected: list[str], actual: list[str], start: int) -> str:
    """The first differing line, as `line N: file has '…' but the snippet has '…'`."""
    for offset, (want, have) in enumerate(zip(actual, expected)):
        if want != have:
            return f"line {start + offset}: the file has {want[:80]!r} but the snippet has {have[:80]!r}"
    diff = list(difflib.unified_diff(actual, expected, lineterm="", n=0))
    return f"the file and snippet differ in length near line {start + min(len(actual), len(expected))}: " + " | ".join(diff[2:4])


def verify_record(raw: RawRecord, record: Record, sources: Sources) -> list[Finding]:
    """Findings for one record's source block against the file at its commit."""
    s = record.source
    if s is None or not sources.can_read_source(s):
        return []
    try:
        text = sources.read_source(s)
    except artifacts.ArtifactMismatch as exc:
        return [make("SRC106", raw.path, "/source/release/sha256", str(exc), raw.pos("/source/release/sha256"))]
    except Unavailable as exc:
        return [make("SRC101", raw.path, "/source/commit", str(exc), raw.pos("/source/commit"))]
    except FetchFailed as exc:
        return [make("SRC105", raw.path, "/source", str(exc), raw.pos("/source", key=True))]
    lines = text.split("\n")
    want = snippet_lines(s.snippet)
    have = lines[s.start_line - 1 : s.end_line]
    findings: list[Finding] = []
    if have != want:
        found = _find(lines, want)
        if found is not None:
            message = f"the snippet stands at lines {found}-{found + len(want) - 1} of the file, not {s.start_line}-{s.end_line}"
            findings.append(make("SRC103", raw.path, "/source/start_line", message, raw.pos("/source/start_line")))
        else:
            findings.append(make("SRC102", raw.path, "/source/snippet", _short_diff(want, have, s.start_line), raw.pos("/source/snippet")))
        return findings
    fragments = message_fragments(record.error.message)
    # The message may be built in a variable above the raise, inside the snippet, or continue just below it.
    window = "\n".join(lines[s.start_line - 1 : s.line - 1 + RAISE_WINDOW])
    if fragments and fragments[0] and not any(fragment in window for fragment in fragments):
        message = f"lines {s.start_line}-{s.line + RAISE_WINDOW - 1} do not contain {fragments[0]!r} from the message"
        elsewhere = next((n for n, text in enumerate(lines, 1) if any(f in text for f in fragments)), None)
        if elsewhere is not None:
            message += f"; the file has it at line {elsewhere} (if the message is defined apart from the raise, this is expected)"
        findings.append(make("SRC104", raw.path, "/source/line", message, raw.pos("/source/line")))
    return findings


def _find(lines: list[str], want: list[str]) -> int | None:
    first = want[0]
    for i, line in enumerate(lines):
        if line == first and lines[i : i + len(want)] == want:
            return i + 1
    return None


def verify(raws: list[RawRecord], records: list[Record], sources: Sources) -> tuple[list[Finding], int, int]:
    """All findings, how many records were checked, and how many had no reachable source."""
    by_id = {r.id: r for r in records}
    findings: list[Finding] = []
    checked = skipped = 0
    for raw in raws:
        record = by_id.get(raw.data.get("id"))
        if record is None or record.source is None:
            continue
        if not sources.can_read_source(record.source):
            skipped += 1
            continue
        checked += 1
        findings.extend(verify_record(raw, record, sources))
    return sorted(findings), checked, skipped


def git_dirs(items: list[str], command: str) -> dict[str, Path] | None:
    """`--git OWNER/NAME=PATH` arguments as a mapping; None (after saying why on stderr) when one is malformed."""
    git = {}
    for item in items:
        repo, sep, path = item.partition("=")
        if not sep or "/" not in repo or not Path(path).is_dir():
            sys.stderr.write(f"errdex {command}: --git wants OWNER/NAME=PATH to an existing folder, not {item!r}\n")
            return None
        git[repo] = Path(path)
    return git
