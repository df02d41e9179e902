"""The highlighting languages a record may name, and the file extensions that pick one: an allow-list.

Pygments ships hundreds of lexers, and some backtrack exponentially on crafted text (Maple, AutoIt, Fantom, ...):
a record that named one, or a `source.path` with its extension, could hang the build. Only the lexers below are
used; `tests/test_highlight.py` times each on adversarial text of the largest size that is ever highlighted.
Anything else is shown as plain text.
"""

from __future__ import annotations

# name (as records write it) -> Pygments lexer alias
LANGUAGES: dict[str, str] = {
    "bash": "bash",
    "c": "c",
    "cmake": "cmake",
    "console": "console",
    "cpp": "cpp",
    "cuda": "cuda",
    "diff": "diff",
    "dockerfile": "docker",
    "go": "go",
    "ini": "ini",
    "javascript": "javascript",
    "json": "json",
    "makefile": "make",
    "powershell": "powershell",
    "pycon": "pycon",
    "pytb": "pytb",
    "python": "python",
    "rust": "rust",
    "shell": "bash",
    "text": "text",
    "toml": "toml",
    "typescript": "typescript",
    "yaml": "yaml",
}

# file extension (lower case, with the dot) -> language, for `source.path` when `source.language` is absent
EXTENSIONS: dict[str, str] = {
    ".bash": "bash", ".c": "c", ".cc": "cpp", ".cfg": "ini", ".cjs": "javascript", ".cmake": "cmake",
    ".cpp": "cpp", ".cu": "cuda", ".cuh": "cuda", ".cxx": "cpp", ".diff": "diff", ".go": "go", ".h": "cpp",
    ".hpp": "cpp", ".ini": "ini", ".js": "javascript", ".json": "json", ".mjs": "javascript", ".mk": "makefile",
    ".patch": "diff", ".ps1": "powershell", ".py": "python", ".pyi": "python", ".rs": "rust", ".sh": "bash",
    ".toml": "toml", ".ts": "typescript", ".txt": "text", ".yaml": "yaml", ".yml": "yaml",
}

# Code longer than this is shown as plain text (records bound code to 8,000 characters; this keeps the bound
# in one place even if that limit grows).
MAX_HIGHLIGHT = 8000
# Nor is code with a line longer than this: a lexer may go back over a line's text at each token (one line of 8,000
# "(" took the makefile lexer 3.2 s; the same characters in lines of 100, 0.07 s). Source lines are far shorter.
MAX_HIGHLIGHT_LINE = 1000


def highlightable(code: str) -> bool:
    """Whether `code` is short enough, and its lines, to be highlighted (else it is shown as plain text)."""
    return len(code) <= MAX_HIGHLIGHT and all(len(line) <= MAX_HIGHLIGHT_LINE for line in code.split("\n"))


def language_of(language: str | None, path: str | None) -> str:
    """The allowed language to highlight with: the record's choice, else by the path's extension, else text."""
    if language in LANGUAGES:
        return language
    if path:
        name = path.rsplit("/", 1)[-1]
        if name in ("Makefile", "makefile", "GNUmakefile"):
            return "makefile"
        if name == "Dockerfile":
            return "dockerfile"
        if name == "CMakeLists.txt":
            return "cmake"
        dot = name.rfind(".")
        if dot > 0:
            return EXTENSIONS.get(name[dot:].lower(), "text")
    return "text"
