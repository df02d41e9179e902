"""`errdex new <id>`: a fully commented record template at data/errors/<id>.yaml."""

from __future__ import annotations

import os
import re
from pathlib import Path

from . import safefs
from .model import ID_PATTERN
from .yamlout import schema_ref

TEMPLATE = Path(__file__).parent / "record_template.yaml"


class NewRecordError(Exception):
    """The id is not valid, or a record already exists at its path."""


def template_text(record_id: str, path: str) -> str:
    """The commented template for `record_id`, with the editor modeline pointing at the schema."""
    text = TEMPLATE.read_text(encoding="utf-8")
    return text.replace("{schema}", schema_ref(record_id)).replace("{id}", record_id).replace("{path}", path)


def new_record(record_id: str, root: Path) -> Path:
    """Write the template for `record_id` under `root`; refuses bad ids and never overwrites."""
    if not re.fullmatch(ID_PATTERN, record_id):
        raise NewRecordError(
            f"{record_id!r} is not a valid id: use lowercase a-z, 0-9 and '-', in segments joined by '/', "
            "e.g. vllm/kv-cache-out-of-memory"
        )
    path = root / f"{record_id}.yaml"
    if path.exists() or os.path.islink(path):
        raise NewRecordError(f"{path} already exists; edit it instead, or choose another id")
    try:
        safefs.write_text(path, template_text(record_id, path.as_posix()), root, exclusive=True)
    except (safefs.UnsafePath, FileExistsError) as exc:
        raise NewRecordError(str(exc)) from None
    return path
