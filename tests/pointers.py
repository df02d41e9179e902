"""JSON pointers over loaded data: every text leaf of a document, and setting the value at one (the tests that put
hostile text in every field of a record or a catalog file walk them this way)."""

from __future__ import annotations

from collections.abc import Iterator


def text_leaves(value, pointer: str = "") -> Iterator[str]:
    """The pointer of every string in `value`, depth first, in the document's order."""
    if isinstance(value, str):
        yield pointer
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from text_leaves(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from text_leaves(v, f"{pointer}/{i}")


def set_at(data, pointer: str, value) -> None:
    """Set the value at `pointer` (keys hold no '/'; list items are numbered)."""
    *parents, last = pointer.split("/")[1:]
    for p in parents:
        data = data[int(p)] if isinstance(data, list) else data[p]
    data[int(last) if isinstance(data, list) else last] = value
