"""The keyword query: words of the caller's text over one field, scopes required inside
Lucene, no syntax of the caller passed through."""

from __future__ import annotations

import pytest

from graphmem.graph.keys import scope_key
from graphmem.read.candidates import lucene_query


def test_words_over_text_or_context_in_the_callers_scopes() -> None:
    assert lucene_query("Who runs the Maple shelter?") == "text:(runs maple shelter)"
    assert lucene_query("Who runs the Maple shelter?", ["a"], field="context") == (
        f"+scope_key:({scope_key('a')})^0 +context:(runs maple shelter)")


def test_no_syntax_and_no_other_field_gets_through() -> None:
    assert lucene_query('scope_key:* OR text:"x"~2') == "text:(scope_key text x 2)"
    assert lucene_query("?? ** __") is None
    with pytest.raises(ValueError):
        lucene_query("x", field="scope_key")
