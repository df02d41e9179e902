"""The errdex record, as pydantic models.

These models are the single source of truth for the record format: `schema/error.schema.json` is generated
from them (`errdex schema`), and a test fails when the committed file is stale. Models are only ever built
from records that have already passed `check`, so they never see untrusted shapes.

Bilingual rule: every human-readable text field ``K`` has an optional sibling ``K_zh`` of the same shape
(a string for a string, a list of equal length for a list, a mapping with the same keys for a mapping).
Code (snippets, example fixes, patterns) and identifiers are never translated. generator/records/bilingual.py finds
the pairs from these models and walks them for the checks, the pages, the API and the translation marks.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from ..languages import LANGUAGES
from .vocabulary import ID_PATTERN, Severity
REPO_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,38}/[A-Za-z0-9_.-]{1,100}$"
SLUG_PATTERN = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DATETIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))?$"
URL_PATTERN = r"^https?://[^\s<>\"'`]+$"
# A repository path: segments joined by '/'; a segment is never empty, '.' or '..' (so a link or a fetch built
# from it cannot leave the repository) and holds no space, '?', '#' or backslash (so it cannot end a URL's path).
_SEGMENT = r"(?:[^/\s?#\\.][^/\s?#\\]*|\.[^/\s?#\\.][^/\s?#\\]*|\.\.[^/\s?#\\]+)"
PATH_PATTERN = rf"^{_SEGMENT}(?:/{_SEGMENT})*$"

# Upper bounds that keep one record a page, not a book; they also bound what a hostile record can cost.
SHORT = 300
TEXT = 4000
CODE = 8000
LIST = 30

Id = Annotated[str, Field(pattern=ID_PATTERN, max_length=200)]
Title = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[^{}\n]+$")]
Repo = Annotated[str, Field(pattern=REPO_PATTERN, max_length=140, examples=["vllm-project/vllm"])]
Slug = Annotated[str, Field(pattern=SLUG_PATTERN, max_length=60)]
Date = Annotated[str, Field(pattern=DATE_PATTERN, json_schema_extra={"format": "date"})]
DateTime = Annotated[str, Field(pattern=DATETIME_PATTERN, description="An ISO 8601 date, or date and time with a zone.")]
Url = Annotated[str, Field(pattern=URL_PATTERN, max_length=2000, json_schema_extra={"format": "uri"})]
Line = Annotated[str, Field(min_length=1, max_length=SHORT)]
Text = Annotated[str, Field(min_length=1, max_length=TEXT)]
Code = Annotated[str, Field(min_length=1, max_length=CODE)]
TextList = Annotated[list[Text], Field(max_length=LIST)]
LineList = Annotated[list[Line], Field(max_length=LIST)]

Language = Literal[tuple(LANGUAGES)]  # type: ignore[valid-type]  # the highlighting allow-list
ErrorType = Literal["exception", "error_code", "console", "http", "validation", "panic"]
HandlingStrategy = Literal["try-catch", "type-guard", "validation", "retry", "fallback"]
VerificationTier = Literal["ai_generated", "community", "source_verified", "reproduced", "maintainer_confirmed"]
Resolvable = Literal["fixable", "partially-fixable", "not-fixable"]
Outcome = Literal["worked", "failed", "partial"]
FIX_POINTER = r"^/(?:solutions|workarounds|dead_ends)/[0-9]+$"
VersionStatus = Literal["active", "fixed", "changed", "unknown"]
# The enums' values in their order, for code that lists them (counts, browse pages, imports).
TIERS: tuple[str, ...] = get_args(VerificationTier)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Example(_Model):
    """One line of the error as it appears in a log: where it was seen, or that it was made from the template."""

    text: Annotated[str, Field(min_length=1, max_length=2000)]
    seen: Url | None = Field(None, description="A public report (issue, forum thread) where this line was posted.")
    constructed: bool | None = Field(None, description="`true` when the line was made from the template, not seen in a report.")


class Report(_Model):
    """One public report of someone trying a fix: the evidence every rate is counted from (never typed)."""

    fix: Annotated[str, Field(pattern=FIX_POINTER)] = Field(
        description="Which fix it is about: `/solutions/N`, `/workarounds/N` or `/dead_ends/N`.", examples=["/solutions/0"]
    )
    url: Url = Field(description="The public report: an issue comment, a pull request, a forum answer.")
    outcome: Outcome = Field(description="What the reporter said happened when they tried it.")
    date: Date = Field(description="When it was reported.")
    version: Line | None = Field(None, description="The version the reporter ran, as they said it, e.g. `vLLM 0.6.3`.")
    quote: Line | None = Field(None, description="The reporter's own words, one short line.")


class Estimate(_Model):
    """A number another dataset typed for this record: kept, attributed, and never shown as counted."""

    field: Annotated[str, Field(pattern=r"^(?:/[a-z0-9_]+)+$", max_length=120)] | None = Field(
        None, description="Which fix the number is about (`/dead_ends/0`, `/workarounds/1`); absent for the whole record."
    )
    kind: Literal["fail_rate", "success_rate", "fix_success_rate", "confidence", "evidence_count"]
    value: Annotated[float, Field(ge=0)]


class ErrorInfo(_Model):
    """What the error says and how to recognise it."""

    message: Annotated[str, Field(min_length=1, max_length=1000)] = Field(
        description="The message template exactly as written in the code; `{}` marks a value filled in at run time.",
        examples=["Failed to allocate {} blocks for request {}"],
    )
    message_zh: Line | None = Field(None, description="Chinese rendering of the message, for readers and search.")
    regex: Annotated[str, Field(min_length=1, max_length=2000)] = Field(
        description="Pattern that finds the error in a log line. Portable subset: valid in RE2 and JavaScript alike.",
        examples=[r"Failed to allocate (\d+) blocks for request (\S+)"],
    )
    exception_class: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.:]*$", max_length=120)] | None = Field(
        None, description="The exception or error class raised, e.g. `ValueError`, `torch.OutOfMemoryError`."
    )
    type: ErrorType = Field(description="How the error surfaces.")
    code: Annotated[str, Field(min_length=1, max_length=120)] | None = Field(
        None, description="An error code the program emits, if any (e.g. `CUDA_ERROR_OUT_OF_MEMORY`)."
    )
    http_status: Annotated[int, Field(ge=100, le=599)] | None = Field(None, description="HTTP status, for HTTP errors.")
    severity: Severity
    examples: Annotated[list[Example], Field(max_length=LIST)] = Field(
        default_factory=list,
        description="Instances of the error with the values filled in, each seen in a public report (`seen`) or "
        "marked `constructed` from the template. Each must match `regex`.",
    )
    counter_examples: Annotated[list[Annotated[str, Field(min_length=1, max_length=2000)]], Field(max_length=LIST)] = (
        Field(default_factory=list, description="Lines that look alike but are not this error; none may match `regex`.")
    )
    unseen: Line | None = Field(
        None, description="Why no example is `seen` in a public report yet (where and when it was looked for); "
        "without a seen example and without this, validate warns (RGX008).",
    )


class Release(_Model):
    """The published release the pinned commit belongs to, and the artifact the snippet was checked in, so that
    anyone can check it again from that release's published file."""

    version: Line = Field(description="The release, as the project numbers it, e.g. `0.24.0` or `b4589`.")
    package: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=100)] | None = Field(
        None, description="The package index name the release is published under, e.g. `vllm`; absent for a git tag only."
    )
    tag: Line | None = Field(None, description="The git tag of the release, e.g. `v0.24.0`.")
    artifact: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]*\.(?:whl|zip|tar\.gz|tar\.xz|tar\.bz2)$", max_length=200)] | None = Field(
        None, description="The file name of the published artifact the snippet was checked in: a wheel or an sdist on the "
        "package index when `package` is set, or another project's source archive (then without `package`).",
    )
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = Field(None, description="That file's sha256.")
    url: Annotated[str, Field(pattern=r"^https://[A-Za-z0-9.-]+/[A-Za-z0-9._~%+/-]+$", max_length=500)] | None = Field(
        None, description="Where the artifact is published when no package index has it (e.g. a distribution's "
        "source package): an https address whose last segment is `artifact`; `sha256` is then required.",
    )
    checked: Date | None = Field(
        None, description="When the snippet was last compared, byte for byte, with the file in that release."
    )


class Source(_Model):
    """The code that raises the error, pinned to a commit. The permalink is derived from these fields."""

    repo: Repo
    path: Annotated[str, Field(pattern=PATH_PATTERN, max_length=500)] = Field(
        description="File path in the repository: segments joined by '/', none empty, '.' or '..'; no spaces, '?', '#' or backslashes."
    )
    line: Annotated[int, Field(ge=1)] = Field(description="The line that raises or logs the error.")
    start_line: Annotated[int, Field(ge=1)] = Field(description="First line of the snippet.")
    end_line: Annotated[int, Field(ge=1)] = Field(description="Last line of the snippet.")
    commit: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] = Field(description="The full 40-hex commit the snippet is pinned to.")
    snippet: Annotated[str, Field(min_length=1, max_length=CODE)] = Field(
        description="Lines start_line..end_line of the file at that commit, byte for byte (at most 40 lines)."
    )
    language: Language | None = Field(None, description="Highlighting language; derived from the file extension when absent.")
    release: Release | None = Field(None, description="The release `commit` belongs to, and where the snippet was checked.")


class ExampleFix(_Model):
    before: Code
    after: Code
    language: Language | None = Field(None, description="Highlighting language of the code; `python` when absent.")
    note: Text | None = None
    note_zh: Text | None = None


class Handling(_Model):
    """Defensive patterns for code that calls into the failing component."""

    strategy: HandlingStrategy
    validate_before: Code | None = Field(None, description="Code that checks inputs before the call.")
    type_guard: Code | None = None
    try_catch: Code | None = Field(None, description="Code that catches and handles the error.")


class DeadEnd(_Model):
    """Something people try that does not fix the error."""

    action: Text | None = Field(None, description="What people try. Records imported from other sources may lack it.")
    action_zh: Text | None = None
    why_fails: Text
    why_fails_zh: Text | None = None
    condition: Text | None = None
    condition_zh: Text | None = None
    sources: Annotated[list[Url], Field(max_length=LIST)] = Field(default_factory=list)


class Workaround(_Model):
    """Something that does help, under a condition; how well is counted from the record's `reports`."""

    action: Text
    action_zh: Text | None = None
    how: Text | None = None
    how_zh: Text | None = None
    condition: Text | None = None
    condition_zh: Text | None = None
    sources: Annotated[list[Url], Field(max_length=LIST)] = Field(default_factory=list)


class Version(_Model):
    version: Line = Field(description="The product and version, e.g. `vLLM 0.4.2` or `CUDA 12.1`.")
    status: VersionStatus = "active"
    introduced: Line | None = None
    deprecated: Line | None = None
    removed: Line | None = None
    behavior_change: Text | None = None
    behavior_change_zh: Text | None = None


# The categories a record can be filed under (REC013 flags another; generator.labels names each in both languages).
CATEGORIES: tuple[str, ...] = (
    "api_error",
    "authentication_error",
    "build_error",
    "compatibility_error",
    "compilation_error",
    "configuration_error",
    "conversion_error",
    "dependency_error",
    "distributed_error",
    "environment_error",
    "hardware_error",
    "import_error",
    "input_error",
    "installation_error",
    "memory_error",
    "model_loading_error",
    "network_error",
    "quantization_error",
    "request_error",
    "resource_error",
    "runtime_error",
    "startup_error",
    "timeout_error",
    "validation_error",
)


class Related(_Model):
    """Ids of other records (or their aliases)."""

    leads_to: Annotated[list[Id], Field(max_length=LIST)] = Field(default_factory=list)
    preceded_by: Annotated[list[Id], Field(max_length=LIST)] = Field(default_factory=list)
    confused_with: Annotated[list[Id], Field(max_length=LIST)] = Field(default_factory=list)
    same_failure: Annotated[list[Id], Field(max_length=LIST)] = Field(
        default_factory=list,
        description="The same failure as another stack words it (vLLM's, SGLang's, TGI's, llama.cpp's records of a KV "
        "cache too small for one sequence). Listing it on one side is enough: pages show it on both.",
    )


RELATIONS: tuple[str, ...] = tuple(Related.model_fields)  # the kinds of link between records, in page order


class OfficialDocs(_Model):
    url: Url
    section: Line | None = None
    section_zh: Line | None = None


class Origin(_Model):
    """Where an imported record came from, kept so that nothing of the source is lost."""

    dataset: Literal["errlookup", "deadends"]
    id: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    url: Url | None = Field(None, description="The record's own page at the source.")
    slug: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    schema_version: Annotated[int, Field(ge=0)] | None = None
    format_version: Line | None = Field(None, description="A schema version the source writes as text (deadends: `1.0.0`).")
    dataset_version: Line | None = None
    background_tag: Line | None = None
    verification_tier: VerificationTier | None = Field(None, description="The tier the source itself gave the record.")
    locale: Annotated[str, Field(pattern=r"^[a-z]{2}(?:-[A-Za-z]{2})?$")] | None = None
    signature: Annotated[str, Field(min_length=1, max_length=2000)] | None = Field(
        None, description="The source's own signature line, when it differs from our message."
    )
    signature_zh: Annotated[str, Field(min_length=1, max_length=2000)] | None = None
    regex: Annotated[str, Field(min_length=1, max_length=2000)] | None = Field(
        None, description="The source's own pattern, when it differs from ours."
    )
    estimates: Annotated[list[Estimate], Field(max_length=LIST)] = Field(
        default_factory=list, description="Rates and scores the source typed: shown as its unverified estimates."
    )
    environment: Annotated[dict[Annotated[str, Field(pattern=r"^[a-z0-9_.]+$", max_length=60)], Line], Field(max_length=20)] = Field(
        default_factory=dict, description="The environment the source described the record for (`os`, `python`, "
        "`hardware.gpu`, ...), as it gave it.",
    )
    first_seen: Date | None = Field(None, description="The date the source gave as first seen (its claim, unchecked).")
    last_confirmed: Date | None = Field(None, description="The date the source gave as last confirmed (its claim).")


class Provenance(_Model):
    """How the record was made and checked. Numbers are never typed: they are counted from `reports`."""

    verification_tier: VerificationTier = Field(
        description="What was checked: `source_verified` needs the snippet compared with its release "
        "(source.release.checked); `reproduced` and `maintainer_confirmed` need a public `confirmation` link."
    )
    confirmation: Url | None = Field(
        None, description="A public link where the error and its fix were reproduced, or a maintainer confirmed them."
    )
    first_seen: Date | None = None
    last_confirmed: Date | None = None
    last_updated: Date
    analyzed_commit: Annotated[str, Field(pattern=r"^[0-9a-f]{7,40}$")] | None = Field(
        None, description="The upstream commit the analysis was made against (a prefix of at least 7 hex digits)."
    )
    analyzed_at: DateTime | None = None
    origin: Origin | None = None


class Record(_Model):
    """One error, one file: `data/errors/<id>.yaml`."""

    id: Id = Field(description="The record's path under data/errors without `.yaml`. Stable forever.")
    title: Title | None = Field(None, description="A short title for readers (at most 80 characters, no `{}`): what went wrong, naming the project; pages, search, the API and every answer show it. The message stays the message.",
                                examples=["vLLM: KV cache memory too small for one request at max model length"])
    title_zh: Title | None = None
    aliases: Annotated[list[Annotated[str, Field(pattern=ID_PATTERN, max_length=200)]], Field(max_length=LIST)] = Field(
        default_factory=list, description="Legacy ids that keep resolving to this record."
    )
    repo: Repo = Field(description="The project whose code raises the error.")
    domain: Slug = Field(examples=["llm"])
    category: Slug = Field(examples=["resource_error"], description="One of generator.records.model.CATEGORIES (REC013 flags another).")
    subcategory: Slug | None = None
    tags: Annotated[list[Slug], Field(max_length=LIST)] = Field(default_factory=list)
    error: ErrorInfo
    explanation: Text = Field(description="What the error means, in plain words.")
    explanation_zh: Text | None = None
    root_cause: Text | None = None
    root_cause_zh: Text | None = None
    root_cause_type: Slug | None = None
    triggers: Text | None = Field(None, description="What makes the code raise it.")
    triggers_zh: Text | None = None
    common_situations: Text | None = None
    common_situations_zh: Text | None = None
    solutions: Annotated[list[Text], Field(min_length=1, max_length=LIST)]
    solutions_zh: TextList | None = None
    example_fix: ExampleFix | None = None
    handling: Handling | None = None
    prevention: TextList = Field(default_factory=list)
    prevention_zh: TextList | None = None
    dead_ends: Annotated[list[DeadEnd], Field(max_length=LIST)] = Field(default_factory=list)
    workarounds: Annotated[list[Workaround], Field(max_length=LIST)] = Field(default_factory=list)
    versions: Annotated[list[Version], Field(max_length=100)] = Field(default_factory=list)
    os_specific: Annotated[dict[Slug, Text], Field(max_length=10)] = Field(default_factory=dict)
    os_specific_zh: Annotated[dict[Slug, Text], Field(max_length=10)] | None = None
    related: Related = Field(default_factory=Related)
    official_docs: OfficialDocs | None = None
    source: Source | None = None
    reports: Annotated[list[Report], Field(max_length=200)] = Field(
        default_factory=list,
        description="Public reports of people trying the fixes above; every rate on the page is counted from these.",
    )
    resolvable: Resolvable | None = None
    provenance: Provenance
    superseded_by: Id | None = Field(None, description="Set when this record is retired in favour of another.")
    zh_fingerprints: Annotated[
        dict[Annotated[str, Field(pattern=r"^(?:/[a-z0-9_]+)+$")], Annotated[str, Field(pattern=r"^[0-9a-f]{8}$")]],
        Field(max_length=500),
    ] = Field(
        default_factory=dict,
        description="Written by `errdex mark-translated`: for each English text (by JSON pointer), a hash of the "
        "text its Chinese translation was reviewed against. A changed English text makes its translation stale.",
    )

    def permalink(self) -> str | None:
        """GitHub permalink of the snippet, derived from the source block."""
        s = self.source
        if s is None:
            return None
        return f"https://github.com/{s.repo}/blob/{s.commit}/{s.path}#L{s.start_line}-L{s.end_line}"
