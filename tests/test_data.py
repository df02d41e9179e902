"""The repository's own records pass every check, warnings included."""

from __future__ import annotations

from pathlib import Path

from generator.pipeline import check

DATA = Path(__file__).parent.parent / "data/errors"


def test_data_passes_strict() -> None:
    result = check([DATA], DATA, strict=True)
    assert [f"{f.path}:{f.line}: {f.code} {f.message}" for f in result.findings] == []
    assert len(result.records) >= 3


def test_every_record_has_examples_and_a_pinned_source() -> None:
    for record in check([DATA], DATA, strict=True).records:
        assert record.error.examples, record.id
        assert record.source is not None and len(record.source.commit) == 40, record.id


def test_seed_aliases_resolve_to_records() -> None:
    names = {alias: r.id for r in check([DATA], DATA).records for alias in r.aliases}
    assert names["75399c058b7579ff"] == "transformers/failed-to-allocate-blocks-for-request"
    assert names["c3bb612f19fc7e3d"] == "vllm/hf3fs-allocation-failed"
    assert names["llm/vllm-block-manager-out-of-memory"] == "vllm/block-manager-out-of-memory"
