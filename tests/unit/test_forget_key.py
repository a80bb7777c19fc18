"""The forget key: a text and what leaves it the same to a reader share one key; texts
that say something else do not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.write.forgotten import forget_key, reading

WORDS = ["ximena", "told", "priya", "about", "the", "billing", "outage", "in", "confidence",
         "on", "tuesday", "at", "3", "pm", "café", "naïve", "über"]
#: Latin letters and a Cyrillic or Greek letter drawn the same.
HOMOGLYPHS = {"a": "а", "e": "е", "o": "ο", "p": "р", "c": "с", "x": "х", "i": "і"}
INVISIBLE = ["\u200b", "\u00ad", "\u200d", "\u2060", "\ufeff"]


@st.composite
def disguised(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a disguised copy: a speaker before it, other case and spacing,
    punctuation, an invisible character, a homoglyph, a compatibility form."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=8))
    text = " ".join(words)
    copy = list(words)
    if draw(st.booleans()):
        copy = [w.upper() if draw(st.booleans()) else w for w in copy]
    if draw(st.booleans()):
        i = draw(st.integers(0, len(copy) - 1))
        copy[i] += draw(st.sampled_from([",", ".", "!", "?", ";", "…"]))
    if draw(st.booleans()):
        i = draw(st.integers(0, len(copy) - 1))
        w = copy[i]
        j = draw(st.integers(0, len(w)))
        copy[i] = w[:j] + draw(st.sampled_from(INVISIBLE)) + w[j:]
    out = draw(st.sampled_from([" ", "  ", " \t"])).join(copy)
    swappable = [k for k, ch in enumerate(out) if ch in HOMOGLYPHS]
    if swappable and draw(st.booleans()):
        k = draw(st.sampled_from(swappable))
        out = out[:k] + HOMOGLYPHS[out[k]] + out[k + 1:]
    if draw(st.booleans()):
        out = out.replace("3", "３")  # a fullwidth digit (NFKC)
    if draw(st.booleans()):
        out = "".join(draw(st.lists(st.sampled_from(["alice: ", "Dr. Ana Lima: ", "bob:  "]),
                                    min_size=1, max_size=2))) + out
    if draw(st.booleans()):
        out = f"{out}{draw(st.sampled_from(['.', '!', ' .', '...']))}"
    return text, out


@settings(max_examples=300, derandomize=True, database=None)
@given(disguised())
def test_a_disguised_copy_has_the_forgotten_texts_key(pair: tuple[str, str]) -> None:
    text, copy = pair
    assert forget_key(copy) == forget_key(text), (reading(copy), reading(text))


@settings(max_examples=200, derandomize=True, database=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
       st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
def test_texts_with_other_words_have_other_keys(a: list[str], b: list[str]) -> None:
    if [w.replace("é", "e").replace("ï", "i").replace("ü", "u") for w in a] != \
            [w.replace("é", "e").replace("ï", "i").replace("ü", "u") for w in b]:
        assert forget_key(" ".join(a)) != forget_key(" ".join(b))


def test_what_the_key_keeps() -> None:
    assert reading("Note: 3:30 pm") == "330 pm"  # a speaker is a name: "3" is not one
    assert reading("costs $5") == "costs $5"  # symbols are words here
    assert reading("...") == "..."  # punctuation alone is itself
    assert reading("日本語のテキスト。") == "日本語のテキスト"
    assert forget_key("alice: I moved to Lisbon") != forget_key("I moved to Porto")
