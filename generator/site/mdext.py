"""A Markdown extension that gives headings fixed ids, and nothing more.

Generated pages write `## Solutions {: #solutions }` so that an anchor is the same in every language. That is
attr_list syntax, but attr_list can set any attribute (`{: onerror=... }`) on any block, which no page built from
contributed text should allow. This extension understands only a trailing `{: #id }` (or `{#id}`) on a heading, with an id
of lowercase letters, digits and '-', and sets that id; any other `{: ... }` stays text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Extension
from markdown.treeprocessors import Treeprocessor

_TRAILING_ID = re.compile(r"\s*\{:?\s*#([a-z][a-z0-9-]*)\s*\}\s*$")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


class _HeadingIds(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            if element.tag not in _HEADINGS:
                continue
            last = element[-1] if len(element) else None  # the marker ends the heading: after its last child
            text = last.tail if last is not None else element.text
            found = _TRAILING_ID.search(text or "")
            if found:
                if last is not None:
                    last.tail = text[: found.start()]
                else:
                    element.text = text[: found.start()]
                element.set("id", found.group(1))


class HeadingIdsExtension(Extension):
    def extendMarkdown(self, md) -> None:  # noqa: N802 (Markdown's API)
        # Before toc (priority 5), which keeps an id that is already set, as it does for attr_list's.
        md.treeprocessors.register(_HeadingIds(md), "errdex_heading_ids", 8)


def makeExtension(**kwargs) -> HeadingIdsExtension:  # noqa: N802 (Markdown's loader looks for this name)
    return HeadingIdsExtension(**kwargs)
