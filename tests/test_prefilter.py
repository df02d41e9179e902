"""The two prefilter engines (generator.match.prefilter) find the same lines: for any keys within PREFILTER_CHARS
(case-sensitive or folded, ASCII or not, overlapping, one inside another) and any block of bytes, Hyperscan and RE2
report the same lines with the same keys, which is all the matcher reads from them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.match.engine import Pattern
from generator.match.prefilter import (KEY_CHARS, KEY_END_RANK, AnyOf, Re2Literals, Tables, compile_tables,
                                       hyperscan_available, key_of, prefilter)
from generator.match.rules import RULES

pytestmark = pytest.mark.skipif(not hyperscan_available(), reason="Hyperscan is not installed here")

ALPHABET = "abAB\u00e9\u00c9\u0130\u03a3\u03c3\u017f.*(\\ \t"  # case pairs (also beyond ASCII), regex syntax


def _lines(engine, block: bytes) -> set[tuple[int, int]]:
    """(key, start of its line) of every key a line holds, from the engine's lines (which must be whole lines, in order)."""
    found = engine.lines(block)
    assert [start for start, _, _ in found] == sorted({start for start, _, _ in found})
    for start, end, keys in found:
        assert (start == 0 or block[start - 1:start] == b"\n") and b"\n" not in block[start:end] and keys
        assert end == len(block) or block[end:end + 1] == b"\n"
    return {(key, start) for start, _, keys in found for key in keys}


def _tables(keys: list[list]) -> Tables:
    return Tables([], [], [], [], [], keys, [[0] for _ in keys], [])


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(st.tuples(st.text(ALPHABET, min_size=1, max_size=6), st.booleans()), min_size=1, max_size=8, unique=True),
       lines=st.lists(st.text(ALPHABET + "xyz", max_size=30), max_size=6))
def test_both_engines_find_the_same_lines(keys, lines):
    keys = [[text, folded] for text, folded in keys]
    block = "\n".join(lines).encode("utf-8")
    hs, r2 = prefilter(_tables(keys), "hyperscan"), Re2Literals(keys)
    assert hs.name == "hyperscan"
    assert _lines(hs, block) == _lines(r2, block)


def _rank(char: str, folded: bool) -> int:
    return KEY_END_RANK.get(char.lower() if folded else char, 0)


@settings(max_examples=300, deadline=None)
@given(literal=st.text("aZ0_ .(", min_size=1, max_size=60), folded=st.booleans())
def test_a_key_is_the_first_window_of_its_literal_that_ends_in_its_rarest_character(literal, folded):
    key = key_of(literal, folded)
    if len(literal) <= KEY_CHARS:
        assert key == literal
        return
    ends = [at for at in range(KEY_CHARS, len(literal) + 1)]
    best = min(_rank(literal[at - 1], folded) for at in ends)
    first = next(at for at in ends if _rank(literal[at - 1], folded) == best)
    assert key == literal[first - KEY_CHARS:first] and len(key) == KEY_CHARS


def test_a_key_ends_where_text_rarely_does():
    assert key_of("Expected all tensors to be on the same device, but found") == "o be on the same device,"
    assert key_of("CUDA out of memory. Tried to allocate") == "CUDA out of memory. Trie"  # no rarer end after
    assert key_of("the tensor is not contiguous_here") == "ensor is not contiguous_"
    assert key_of("ABCDEFGHIJKLMNOPQRSTUVWXyz") == "ABCDEFGHIJKLMNOPQRSTUVWX"  # uppercase ranks below lowercase...
    assert key_of("abcdefghijklmnopqrstuvwxYZ", folded=True) == "abcdefghijklmnopqrstuvwx"  # ... unless folded


PARTIAL_MIN = RULES["partial_min_chars"]


@st.composite
def _pattern(draw):
    """(literals, message, folded): literals are often the message or part of it, as a template's are."""
    message = draw(st.text("ab _.", max_size=60))
    pieces = st.builds(lambda a, b: message[min(a, b):max(a, b)], st.integers(0, len(message)), st.integers(0, len(message)))
    literals = draw(st.lists(st.one_of(pieces, st.text("ab _.", max_size=50)).filter(bool), min_size=1, max_size=3))
    return literals, message, draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(patterns=st.lists(_pattern(), min_size=1, max_size=6))
def test_every_line_that_can_match_holds_a_key_of_the_pattern(patterns):
    """Whatever windows the keys are: a line that holds one of a pattern's literals, or the first partial_min
    characters of its partial text (what a cut-off line holds), holds a key whose owners include the pattern."""
    made = [Pattern(f"p{i}", "x", message, "", "", literals=tuple(literals), ignore_case=folded, specificity=1, anchored=False)
            for i, (literals, message, folded) in enumerate(patterns)]
    t = compile_tables(made)
    for index, (literals, message, folded) in enumerate(patterns):
        mine = [(text, keyfold) for (text, keyfold), owners in zip(t.keys, t.owners) if index in owners]
        for literal in literals:  # a folded literal's line may hold it in another case: only a folded key is sure
            assert any((text.lower() in literal.lower()) if keyfold else (text in literal and not folded) for text, keyfold in mine)
        if t.partials[index]:
            head = t.partials[index][:PARTIAL_MIN]
            assert any(text in head and not keyfold for text, keyfold in mine)


def test_overlapping_and_repeated_occurrences_are_all_found():
    keys = [["aa", False], ["a", False], ["\u00e9t\u00e9", True]]
    block = "aaa\nxx\n\u00c9T\u00c9 and \u00e9t\u00e9\naa".encode("utf-8")
    hs, r2 = prefilter(_tables(keys), "hyperscan"), Re2Literals(keys)
    assert _lines(hs, block) == _lines(r2, block) == {(0, 0), (1, 0), (2, 7), (1, 7), (0, 23), (1, 23)}


def test_a_database_from_elsewhere_is_compiled_again_not_trusted():
    keys = [["needle", False]]
    engine = prefilter(_tables(keys), "hyperscan", serialised=b"not a hyperscan database")
    assert _lines(engine, b"hay\na needle\n") == {(0, 4)}


def test_an_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="engine must be one of"):
        prefilter(_tables([["x", False]]), "pcre")


@pytest.mark.parametrize("name", ["hyperscan", "re2"])
def test_a_line_found_quiet_before_is_left_out(name):
    keys = [["needle", False]]
    engine = prefilter(_tables(keys), name)
    block = b"a needle\nthe needle\na needle\r\nneedle"
    assert [(s, e) for s, e, _ in engine.lines(block)] == [(0, 8), (9, 19), (20, 29), (30, 36)]
    assert [(s, e) for s, e, _ in engine.lines(block, {b"a needle", b"needle"})] == [(9, 19), (20, 29)]


@settings(max_examples=200, deadline=None)
@given(strings=st.lists(st.text(ALPHABET, min_size=1, max_size=5), min_size=1, max_size=5),
       text=st.text(ALPHABET + "xyz\n", max_size=60))
def test_both_engines_say_alike_whether_a_text_holds_one_of_a_few_strings(strings, text):
    data = text.encode("utf-8")
    expected = any(s.encode("utf-8") in data for s in strings)
    assert AnyOf(strings, "hyperscan")(data) is expected
    assert AnyOf(strings, "re2")(data) is expected


def test_one_of_a_few_strings_is_found_by_threads_at_once():
    """Scans in several threads at once (the MCP server's tools run in threads) each answer: none shares another's
    Hyperscan scratch, which a second scan at the same time would find in use."""
    import threading

    find = AnyOf(["KeyError: '"], "hyperscan")
    text = b"x" * 20_000_000 + b"KeyError: 'llama'"
    answers: list[object] = []

    def ask() -> None:
        try:
            answers.append(find(text))
        except Exception as exc:  # noqa: BLE001 - the answer to look at
            answers.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [True] * 4
