"""`errdex new <id>`: a fully commented record template at data/errors/<id>.yaml."""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import safefs
from .load import load_records
from .model import ID_PATTERN
from .yamlout import schema_ref

TEMPLATE = Path(__file__).parent / "record_template.yaml"


class NewRecordError(Exception):
    """The id is not valid, or a record already exists at its path."""


def template_text(record_id: str, path: str) -> str:
    """The commented template for `record_id`, with the editor modeline pointing at the schema."""
    text = TEMPLATE.read_text(encoding="utf-8")
    return text.replace("{schema}", schema_ref(record_id)).replace("{id}", record_id).replace("{path}", path)


def name_owner(name: str, root: Path) -> str | None:
    """The id of the record under `root` that has `name` as an alias, if any (an id is its file, checked apart)."""
    if not root.is_dir():
        return None
    raws, _ = load_records([root], root)
    for raw in raws:
        aliases = raw.data.get("aliases") if isinstance(raw.data, dict) else None
        if isinstance(aliases, list) and name in aliases:
            return str(raw.data.get("id"))
    return None


def new_record(record_id: str, root: Path) -> Path:
    """Write the template for `record_id` under `root`; refuses bad ids and never overwrites."""
    if not re.fullmatch(ID_PATTERN, record_id):
        raise NewRecordError(
            f"{record_id!r} is not a valid id: use lowercase a-z, 0-9 and '-', in segments joined by '/', "
            "e.g. vllm/kv-cache-out-of-memory"
        )
    owner = name_owner(record_id, root)
    if owner is not None:
        raise NewRecordError(f"{record_id!r} is already taken: it is an alias of {owner!r} (ids and aliases are never reused); choose another id")
    path = root / f"{record_id}.yaml"
    if path.exists() or os.path.islink(path):
        raise NewRecordError(f"{path} already exists; edit it instead, or choose another id")
    try:
        safefs.write_text(path, template_text(record_id, path.as_posix()), root, exclusive=True)
    except (safefs.UnsafePath, FileExistsError) as exc:
        raise NewRecordError(str(exc)) from None
    return path
