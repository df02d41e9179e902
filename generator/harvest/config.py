"""The harvest configuration, data/catalog/projects.yaml: one place for every project's settings."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path
from typing import Any

from ..yamlout import safe_load

CATALOG_ROOT = Path("data/catalog")
CONFIG_PATH = CATALOG_ROOT / "projects.yaml"
LANGUAGE_SUFFIXES = {
    "python": (".py",),
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".cu", ".cuh", ".h"),
    "rust": (".rs",),
    "go": (".go",),
}


class ConfigError(Exception):
    """The configuration file is missing a setting or has one of the wrong shape."""


@dataclass(frozen=True)
class CCall:
    """A C/C++ call or macro that reports an error, and which argument holds its message."""

    kind: str
    arg: int = 0
    level: str | None = None
    condition: bool = False  # GGML_ASSERT(cond): the message is the condition's text
    joined: bool = False  # TORCH_CHECK(cond, "a ", x, " b"): the message is the arguments from `arg` on, joined
    exception: str | None = None  # the exception users see (TORCH_CHECK_VALUE: ValueError)
    checks: int | None = None  # the argument holding the condition the call checks (TORCH_CHECK(cond, ...): 0), a guide's guard


@dataclass
class Project:
    slug: str
    repo: str
    source: str  # pypi | git
    languages: list[str]
    releases: list[str]
    package: str | None = None
    artifact: str = "wheel"  # wheel | sdist (pypi only)
    strip: str = ""
    include: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)
    user: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    c_calls: dict[str, CCall] = field(default_factory=dict)
    pip_platforms: list[str] = field(default_factory=list)
    pip_python: str = "3.12"
    # the symbol index: registry name -> [{"path": glob, "variable": glob}] (string keys of dict literals), and
    # classes (dotted) whose fields are command-line flags (`max_model_len` -> `--max-model-len`)
    registries: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    flag_classes: list[str] = field(default_factory=list)
    # Rust files (path globs) and the clap-derived structs in them whose fields are the program's flags
    clap_structs: list[dict[str, str]] = field(default_factory=list)
    # transformers' auto classes: {"path": glob of the files, "classes": glob of the class names, "also": {class: mapping}}
    auto_classes: dict = field(default_factory=dict)
    # registry name -> [{"path": glob, "name": variable}]: the strings a variable is compared with (TGI's model types)
    compared: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    symbol_skip: list[str] = field(default_factory=list)  # files the symbol index leaves out (placeholders)
    python_root: str = ""  # the folder an sdist keeps the importable package in: modules are named from it

    @cached_property
    def call_checks(self) -> dict[str, int]:
        """The c_calls that check a condition, each with the argument that holds it (TORCH_CHECK: 0): what a guide
        reads as the guard (harvest.guides.c_guide). Made once a project, not once an entry."""
        return {name: call.checks for name, call in self.c_calls.items() if call.checks is not None}

    def language_of(self, path: str) -> str | None:
        """The language a (stripped) path is parsed as, or None when it is not harvested."""
        if not _matches(path, self.include, prefix=True) or _matches(path, self.skip, prefix=True):
            return None
        for lang in self.languages:
            if path.endswith(LANGUAGE_SUFFIXES[lang]):
                # .h is C++ in a project that has C++ (llama.cpp's headers are), C otherwise
                if lang == "c" and "cpp" in self.languages and not path.endswith(".c"):
                    continue
                return lang
        return None

    def selection(self) -> str:
        """A fingerprint of which artifact of a release is read and which of its files are harvested: a release's
        cached manifest made under another selection (package, artifact kind, pip's Python or platforms, include,
        skip, strip or languages changed since) is read again, not reused."""
        chosen = {"artifact": self.artifact, "include": self.include, "languages": self.languages, "package": self.package,
                  "pip_platforms": self.pip_platforms, "pip_python": self.pip_python, "skip": self.skip, "strip": self.strip}
        return hashlib.sha256(json.dumps(chosen, sort_keys=True).encode()).hexdigest()[:16]

    def is_user_path(self, path: str) -> bool:
        return _matches(path, self.user, prefix=False)

    def repos(self) -> set[str]:
        return {r.lower() for r in [self.repo, *self.aliases]}


def _matches(path: str, patterns: list[str], prefix: bool) -> bool:
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            if fnmatchcase(path, pattern):
                return True
        elif path == pattern or (prefix or pattern.endswith("/")) and path.startswith(pattern):
            return True
    return False


def _need(data: dict, key: str, kind: type, slug: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise ConfigError(f"projects.{slug}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def parse_config(doc: Any) -> dict[str, Project]:
    """Projects by slug, from the parsed YAML."""
    if not isinstance(doc, dict) or not isinstance(doc.get("projects"), dict):
        raise ConfigError("the file needs a `projects:` mapping")
    defaults = doc.get("defaults") or {}
    projects: dict[str, Project] = {}
    for slug, data in doc["projects"].items():
        if not isinstance(data, dict):
            raise ConfigError(f"projects.{slug}: expected a mapping")
        source = _need(data, "source", str, slug)
        if source not in ("pypi", "git"):
            raise ConfigError(f"projects.{slug}.source: pypi or git, not {source!r}")
        languages = _need(data, "languages", list, slug)
        for lang in languages:
            if lang not in LANGUAGE_SUFFIXES:
                raise ConfigError(f"projects.{slug}.languages: unknown language {lang!r}")
        table = data.get("c_calls") or {}
        if isinstance(table, str):  # the name of a table several projects share (defaults.c_call_sets)
            sets = defaults.get("c_call_sets") or {}
            if table not in sets:
                raise ConfigError(f"projects.{slug}.c_calls: no defaults.c_call_sets.{table}")
            table = sets[table]
        calls = {name: CCall(**spec) for name, spec in table.items()}
        symbols = data.get("symbols") or {}
        projects[slug] = Project(
            slug=slug,
            repo=_need(data, "repo", str, slug),
            source=source,
            languages=languages,
            releases=[str(v) for v in _need(data, "releases", list, slug)],
            package=data.get("package"),
            artifact=data.get("artifact", "wheel"),
            strip=data.get("strip", ""),
            include=list(data.get("include") or []),
            skip=list(data.get("skip") or []),
            user=list(data.get("user") or []),
            aliases=list(data.get("aliases") or []),
            c_calls=calls,
            pip_platforms=list(data.get("pip_platforms", defaults.get("pip_platforms", []))),
            pip_python=str(data.get("pip_python", defaults.get("pip_python", "3.12"))),
            registries={k: [dict(w) for w in v] for k, v in (symbols.get("registries") or {}).items()},
            flag_classes=list(symbols.get("flag_classes") or []),
            clap_structs=[dict(w) for w in symbols.get("clap_structs") or []],
            auto_classes=dict(symbols.get("auto_classes") or {}),
            compared={k: [dict(w) for w in v] for k, v in (symbols.get("compared") or {}).items()},
            symbol_skip=list(symbols.get("skip") or []),
            python_root=str(symbols.get("python_root") or ""),
        )
        if source == "pypi" and not projects[slug].package:
            raise ConfigError(f"projects.{slug}.package: a PyPI project needs its package name")
    return projects


def load_config(path: Path = CONFIG_PATH) -> dict[str, Project]:
    """Read and parse the configuration file."""
    return parse_config(safe_load(path.read_text(encoding="utf-8")))
