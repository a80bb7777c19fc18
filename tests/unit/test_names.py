"""A framework's names as graphmem scopes and ids (graphmem.integrations.names): any label
of any code point class escapes into a name that reverses exactly, or is refused with
graphmem's InputError naming its field (a lone surrogate is not Unicode text), never a
UnicodeEncodeError from deep inside."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.base.errors import InputError
from graphmem.integrations.names import escape, scope_of, unescape

#: Every code point class, surrogates (Cs) included, which the default leaves out.
ANY_CODE_POINT = st.text(st.one_of(st.characters(exclude_categories=()),
                                   st.characters(categories=["Cs"])), max_size=30)


@given(ANY_CODE_POINT)
def test_any_label_reverses_exactly_or_is_refused_as_input(label: str) -> None:
    try:
        escaped = escape(label, "session_id")
    except InputError as e:
        assert e.field == "session_id" and "surrogate" in e.one_line()
        assert any(0xD800 <= ord(c) <= 0xDFFF for c in label)
        return
    assert unescape(escaped) == label
    try:
        scope_of("agents", label, field="user_id")
    except InputError as e:
        assert e.field == "user_id"  # too long for a scope, named as such


def test_a_lone_surrogate_names_its_field() -> None:
    with pytest.raises(InputError, match="surrogate") as refused:
        scope_of("agents", "alice\ud800", field="user_id")
    assert refused.value.field == "user_id"


def test_a_name_too_long_for_a_scope_goes_by_its_longest_labels_hash() -> None:
    user = "渡辺" * 12  # 24 CJK characters: 216 escaped
    scope = scope_of("adk", "my-app", user, field="user_id")
    assert len(scope) <= 200 and scope.startswith("adk/my-app/@@")
    assert scope == scope_of("adk", "my-app", user, field="user_id")  # the same every time
    assert scope != scope_of("adk", "my-app", user + "x", field="user_id")
    assert scope_of("adk", "my-app", "alice") == "adk/my-app/alice"  # what fits is as before
    assert unescape(escape("@@x")) == "@@x" and not escape("@@x").startswith("@@")
