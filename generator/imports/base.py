"""What the import stages share: the converted record, readable ids, and the helpers that keep optional values
absent and every unmapped field reported by name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..records.model import Record

# Short project names for ids, where the repository name alone reads badly.
PROJECT_NAMES = {
    "huggingface/text-generation-inference": "tgi",
    "ggml-org/llama.cpp": "llama-cpp",
    "ggerganov/llama.cpp": "llama-cpp",
    "sgl-project/sglang": "sglang",
}
# For deadends records, which name no repository: a project prefix of the slug, or the runtime the record names
# (its `environment.runtime.name`), or its domain -> the repository whose code raises the error. `cuda` is
# PyTorch's: the `CUDA error: ...` lines are its C10_CUDA_CHECK messages. Anything else needs --repo.
KNOWN_REPOS = {
    "vllm": "vllm-project/vllm",
    "transformers": "huggingface/transformers",
    "huggingface": "huggingface/transformers",
    "tgi": "huggingface/text-generation-inference",
    "sglang": "sgl-project/sglang",
    "llama-cpp": "ggml-org/llama.cpp",
    "llamacpp": "ggml-org/llama.cpp",
    "pytorch": "pytorch/pytorch",
    "torch": "pytorch/pytorch",
    "cuda": "pytorch/pytorch",
    "tensorflow": "tensorflow/tensorflow",
    "openai-api": "openai/openai-python",
}
RESOLVABLE = {"true": "fixable", "partial": "partially-fixable", "false": "not-fixable", True: "fixable", False: "not-fixable"}
ORDER = list(Record.model_fields)
MAX_SLUG = 60


class ImportFailure(Exception):
    """A file or entry that cannot be imported; the message names the file and the entry."""


@dataclass
class Imported:
    """One converted record and what the conversion has to say about it."""

    source: str
    record: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    # Message texts the source gives for the same error that are not examples yet (deadends `aliases`).
    variants: list[str] = field(default_factory=list)
    # Related links by the source's own ids, resolved (or reported) when the records are written.
    links: dict[str, list[str]] = field(default_factory=dict)
    # Another id to fall back to when the first is taken by a different error (the environment of a canon).
    alternative: str | None = None

    @property
    def id(self) -> str:
        return self.record["id"]

    @property
    def legacy(self) -> str | None:
        origin = self.record.get("provenance", {}).get("origin", {})
        return origin.get("id") if isinstance(origin.get("id"), str) else None


def slugify(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")


def cut(slug: str, limit: int = MAX_SLUG) -> str:
    """The slug shortened to `limit` characters at a word boundary (never mid-word)."""
    if len(slug) <= limit:
        return slug
    head = slug[: limit + 1]
    return head.rsplit("-", 1)[0] if "-" in head else slug[:limit]


def project_name(repo: str) -> str:
    return PROJECT_NAMES.get(repo, slugify(repo.split("/")[-1]))


def record_id(repo: str, text: str) -> str:
    """`<project>/<readable slug>`: the project is not repeated at the start of the slug, and the slug is cut at a
    word boundary."""
    name = project_name(repo)
    slug = slugify(text)
    for prefix in sorted({name, slugify(repo.split("/")[-1]), slugify(repo.split("/")[0])}, key=len, reverse=True):
        if slug.startswith(prefix + "-"):
            slug = slug[len(prefix) + 1:]
            break
    return f"{name}/{cut(slug) or 'error'}"


def lst(value: Any) -> list:
    """A list from the source, or none: a value of another type is left for the report of unexpected types."""
    return value if isinstance(value, list) else []


def dct(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def compact(value: Any) -> Any:
    """Drop None, empty strings, empty lists and empty mappings, recursively: optional means absent."""
    if isinstance(value, dict):
        out = {k: compact(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [compact(v) for v in value if v not in (None, "")]
    return value


def ordered(record: dict[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in ORDER if key in record}


def date(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value) else None


class Taker:
    """Reads the fields of one source object and remembers which it read, so the rest can be reported."""

    def __init__(self, entry: dict[str, Any], where: str, prefix: str = ""):
        self.entry, self.where, self.prefix, self.used = entry, where, prefix, set()

    def __call__(self, key: str) -> Any:
        self.used.add(key)
        return self.entry.get(key)

    def sub(self, key: str) -> Taker:
        self.used.add(key)
        value = self.entry.get(key)
        return Taker(value if isinstance(value, dict) else {}, self.where, f"{self.prefix}{key}.")

    def unmapped(self, skip: set[str] = frozenset()) -> list[str]:
        return unplaced(self.where, [f"{self.prefix}{key}" for key in sorted(set(self.entry) - self.used - skip)])


def unplaced(where: str, fields: list[str]) -> list[str]:
    """The report of fields that have no place in errdex records, by name."""
    return [f"{where}: field {name!r} has no place in errdex records and was not imported" for name in fields]


LITERAL = re.compile(r"[\\.^$|?*+()\[\]{}]")


def literal_regex(text: str) -> str:
    """A pattern that finds exactly `text` (only the characters that need it are escaped: portable in RE2 and JS)."""
    return LITERAL.sub(lambda m: "\\" + m[0], text)


# A placeholder of a message template (`{}`, `{n}`, `{self.max_loras}`, `%s`, `%d`).
HOLE = re.compile(r"\{[^{}]{0,40}\}|%[sdifr]")


def template_regex(message: str) -> str:
    """A pattern made from a message template: its text literal, each hole a value without spaces (the last
    one, at the end, anything)."""
    pieces = HOLE.split(message)
    out = literal_regex(pieces[0])
    for i, piece in enumerate(pieces[1:], 1):
        out += ("(.*)" if i == len(pieces) - 1 and not piece.strip() else r"(\S+)") + literal_regex(piece)
    return out


# Other datasets' categories that are ours under another name; any other becomes runtime_error, with theirs kept as
# the subcategory and a note (REC013 would flag a category outside generator.records.model.CATEGORIES).
CATEGORY_SYNONYMS = {
    "config_error": "configuration_error", "auth_error": "authentication_error", "install_error": "installation_error",
    "build": "build_error", "loading_error": "model_loading_error", "init_error": "startup_error",
    "initialization_error": "startup_error", "version_error": "compatibility_error", "compatibility": "compatibility_error",
    "version_incompatibility": "compatibility_error", "device_error": "hardware_error", "device": "hardware_error",
    "gpu_error": "hardware_error", "driver_error": "environment_error", "library_error": "environment_error",
    "rate_limit_error": "api_error", "http_error": "api_error", "http": "api_error",
}


def our_category(theirs: object, subcategory: object, notes: list[str], where: str) -> tuple[str, object]:
    """Their category as one of ours, and the subcategory to keep (theirs, when it had no place as a category)."""
    from ..records.model import CATEGORIES

    if isinstance(theirs, str) and theirs in CATEGORIES:
        return theirs, subcategory
    mapped = CATEGORY_SYNONYMS.get(theirs, "runtime_error") if isinstance(theirs, str) else "runtime_error"
    notes.append(f"{where}: category {theirs!r} filed under {mapped!r}; review it")
    keep = subcategory
    if keep is None and isinstance(theirs, str) and re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)*", theirs):
        keep = theirs.replace("_", "-")
    return mapped, keep
