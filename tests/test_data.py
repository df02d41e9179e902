"""The repository's own records pass every check, warnings included."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.checks.pipeline import check

DATA = Path(__file__).parent.parent / "data/errors"
pytestmark = pytest.mark.data


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


TYPED = {"fail_rate", "success_rate", "fix_success_rate", "confidence", "evidence_count", "rate", "score"}


def _numbers(value, pointer=""):
    """(pointer, key, number) for every number in the data, with the key it stands under."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                yield f"{pointer}/{k}", k, v
            else:
                yield from _numbers(v, f"{pointer}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, f"{pointer}/{i}")


def test_no_number_is_typed() -> None:
    """Rates are counted from linked reports, never typed: the only numbers a record holds are line numbers, an HTTP
    status, and another dataset's estimates kept under provenance/origin/estimates; the API's numbers are counted."""
    import json

    from generator.api.export import api_files

    result = check([DATA], DATA)
    allowed = {"line", "start_line", "end_line", "http_status", "schema_version"}
    for raw in result.raws:
        for pointer, key, _ in _numbers(raw.data):
            assert key in allowed or pointer.startswith("/provenance/origin/estimates/"), (raw.path, pointer)
    for name, body in api_files(result.records).items():
        if name.startswith("errors/") and name.endswith(".json"):
            doc = json.loads(body)
            for pointer, key, _ in _numbers(doc.get("record", {})):
                assert key not in TYPED or pointer.startswith("/provenance/origin/estimates/"), (name, pointer)
            for fix, tally in doc.get("evidence", {}).get("by_fix", {}).items():
                reports = [r for r in doc["record"]["reports"] if r["fix"] == fix]
                assert tally["reports"] == len(reports) > 0, (name, fix)


def test_every_category_is_named_in_every_language() -> None:
    from generator.labels import CATEGORY_LABELS

    from generator.records.model import CATEGORIES

    assert set(CATEGORY_LABELS) == set(CATEGORIES)
    assert all(set(v) == {"en", "zh"} and v["zh"] for v in CATEGORY_LABELS.values())
    categories = {yaml.safe_load(p.read_text(encoding="utf-8"))["category"] for p in DATA.rglob("*.yaml")}
    assert categories <= set(CATEGORIES)


def test_every_record_has_a_short_title_in_both_languages_and_no_two_share_one() -> None:
    records = check([DATA], DATA, strict=True).records
    for lang in ("title", "title_zh"):
        titles = [getattr(r, lang) for r in records]
        assert all(titles) and len({t.casefold() for t in titles}) == len(titles), lang
    assert all(len(r.title) <= 80 and "{}" not in r.title for r in records)


# The site is published on GitHub Pages (.github/workflows/pages.yml), which takes a site of at most 1 GB: the
# repository's built site keeps 50 MB of it free, so that a harvest that grows the catalog fails here first.
SITE_BUDGET = 950_000_000


def test_the_built_site_fits_where_it_is_published(real_site: Path) -> None:
    total = sum(p.stat().st_size for p in real_site.rglob("*") if p.is_file())
    assert total <= SITE_BUDGET, f"the built site holds {total:,} bytes, over the budget of {SITE_BUDGET:,}"
