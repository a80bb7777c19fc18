"""RecallOptions: what to recall is flat, how it ranks is grouped, and every knob can
also be given by its short name (the CLI's, the service's, the MCP tool's)."""

from __future__ import annotations

import pytest

from graphmem.base.errors import InputError
from graphmem.base.options import GROUPS, SHORT_NAMES, RecallOptions, parse


def test_a_short_name_lands_in_its_group() -> None:
    opts = parse(RecallOptions, {"rrf_k": 7, "turn_weight": 0.0, "context": False,
                                 "association": 0.4, "reinforce": False, "top_k": 3})
    assert opts.fusion.rrf_k == 7 and opts.context.turn_weight == 0.0
    assert opts.context.enabled is False and opts.association.weight == 0.4
    assert opts.feedback.reinforce is False and opts.top_k == 3
    assert opts.fusion.candidates == RecallOptions().fusion.candidates  # the rest stands


def test_a_group_and_short_names_combine_and_the_short_name_wins() -> None:
    opts = parse(RecallOptions, {"fusion": {"rrf_k": 9, "candidates": 80}, "rrf_k": 4})
    assert (opts.fusion.rrf_k, opts.fusion.candidates) == (4, 80)
    again = parse(RecallOptions, {**opts.model_dump(), "alpha": 0.5})
    assert again.fusion.candidates == 80 and again.fusion.alpha == 0.5


def test_every_knob_has_one_short_name_and_no_group_field_is_shadowed() -> None:
    names = [f for model in GROUPS.values() for f in model.model_fields]
    assert len(names) == len(set(names))  # a short name means one knob
    assert not set(names) & set(RecallOptions.model_fields)
    assert all(RecallOptions.accepts(n) for n in SHORT_NAMES)


@pytest.mark.parametrize(("given", "field"), [({"rrf_k": 0}, "rrf_k"),
                                              ({"turn_weight": 2}, "turn_weight"),
                                              ({"no_such_knob": 1}, "no_such_knob"),
                                              ({"fusion": {"nope": 1}}, "nope")])
def test_a_bad_option_is_one_error_naming_it(given, field) -> None:
    with pytest.raises(InputError) as e:
        parse(RecallOptions, given)
    assert field in (e.value.field or "") and "\n" not in str(e.value)
    assert not RecallOptions.accepts("no_such_knob")


def test_a_knob_beside_a_group_that_is_no_object_is_an_error_naming_the_group() -> None:
    # Found by the hardening suite: {"use_weight": 0, "feedback": null} was a 500.
    with pytest.raises(InputError, match="feedback is a group of options"):
        parse(RecallOptions, {"use_weight": 0, "feedback": None})


@pytest.mark.parametrize("values", [
    {"direct_boost": 1e308}, {"promote_accesses": 10**12}, {"hub_limit": 10**30},
    {"rrf_k": 10**9}, {"association": float("inf")}, {"turn_weight": float("nan")},
    {"link_tau_days": 0}, {"seeds": 10**6}])
def test_every_numeric_option_is_bounded_and_finite(values: dict) -> None:
    with pytest.raises(InputError):
        parse(RecallOptions, values)


def test_the_typed_keywords_are_exactly_the_options() -> None:
    # recall, remember_json and ingest took untyped **kwargs; their TypedDicts must not
    # drift from the options they stand for.
    import inspect

    from graphmem.base.options import RecallSettings, WriteSettings
    from graphmem.operations import Operations

    assert set(RecallSettings.__annotations__) == set(RecallOptions.model_fields) | set(
        SHORT_NAMES)
    taken = inspect.signature(Operations.write_options).parameters
    assert set(WriteSettings.__annotations__) == set(taken) - {"self"}
