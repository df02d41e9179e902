"""An entry's guide in words, as every surface that shows one says it (the CLI's answer card, an entry's own page;
the entry view's script says it alike): the catalog's labels (generator/labels.py) around what the code gave."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..labels import catalog_label


@dataclass(frozen=True)
class GuideWords:
    """An entry's guide (generator/harvest/guides.py) in the catalog's labels, as every surface words it: its
    heading (read from the code, never a fix), (label, text, whether the text is code) rows for the guard, the
    comment above and the function's docstring line, then each option it names as (name, "default X" or None,
    help or None) under `options_label`. The surfaces only lay it out (text, HTML)."""

    heading: str
    rows: list[tuple[str, str, bool]]
    options_label: str
    options: list[tuple[str, str | None, str | None]]


def guide_words(guide: dict[str, Any], project: str, function: str | None, lang: str) -> GuideWords:
    L = lambda key, **values: catalog_label(key, lang, **values)  # noqa: E731
    rows = []
    guard = guide.get("guard")
    if guard:  # its kind is one the catalog's schema allows, each with its label
        rows.append((L("guard_" + guard["kind"]), guard["source"], True))
    if guide.get("comment"):
        rows.append((L("code_comment"), guide["comment"], False))
    if guide.get("doc") and function:
        rows.append((L("code_doc", function=function), guide["doc"], False))
    options = [(o.get("flag") or (f"{o['class']}.{o['name']}" if o.get("class") else o["name"]),
                L("code_default", value=o["default"]) if o.get("default") else None, o.get("help") or None)
               for o in guide.get("options", [])]
    return GuideWords(L("from_code", project=project, release=guide.get("release", "")), rows, L("code_options"), options)
