"""The standing hardening suite, the part without a server: generated records, files and
command-line flags end in a result or in one line naming what is wrong (exit 1, or 2 for
the unreachable server these tests point at), never in a traceback; a secret anywhere in
a record is refused and never echoed.

Budget: `GRAPHMEM_HARDENING_SCALE` multiplies the example counts (1 in `.ci/run`, with a
fixed seed; raise it for a longer hunt).
"""

from __future__ import annotations

import io
import json
import math
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.base.errors import InputError
from graphmem.base.gates import secret_reason, shown
from graphmem.base.types import MAX_INT
from graphmem.write import plan as planning
from graphmem.write.extract import RuleExtractor
from graphmem.write.records import Collector, Numbered, parse_records, validate

SCALE = float(os.environ.get("GRAPHMEM_HARDENING_SCALE", "1"))
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def budget(n: int) -> settings:
    """Hypothesis settings for `n` examples at scale 1, derandomised (a fixed seed)."""
    return settings(max_examples=max(1, int(n * SCALE)), derandomize=True, deadline=None,
                    suppress_health_check=list(HealthCheck), database=None)


#: One of each credential format the scanner knows (none is real).
SECRETS = [
    "AKIAIOSFODNN7EXAMPLQ",
    "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "xoxb-123456789012-abcdefghijKLMNOP",
    "sk-proj-" + "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7j",
    "postgres://admin:hunter2hunter2@db.internal:5432/prod",
    "Zx9Qw2Er7Ty4Ui1Op6As3Df8Gh5Jk0Lm",
]
#: Only random-looking: a secret in content, an ordinary id in a name (ids look random).
RANDOM_ONLY = "Zx9Qw2Er7Ty4Ui1Op6As3Df8Gh5Jk0Lm"
#: The fields that name things rather than say them.
NAMES = {"id", "session", "added_by", "supersedes", "link", "scope"}

scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                           max_leaves=12)
dates = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                 timezones=st.sampled_from([UTC]) | st.timezones()).map(datetime.isoformat),
    st.sampled_from(["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00",
                     "2023-05-08T13:56", "yesterday", ""]),
)
meta_keys = st.sampled_from(["speaker", "turn", "dia_id", "bad key", "x\n", "_k", "9lives"])
meta_values = (scalars | st.lists(scalars, max_size=5)
               | st.lists(st.booleans() | st.integers(), max_size=4))
records = st.fixed_dictionaries({}, optional={
    "text": st.text(max_size=60) | json_values,
    "id": st.text(max_size=12) | json_values,
    "kind": st.sampled_from(["fact", "episodic", "gossip", "Rule"]) | json_values,
    "visibility": st.sampled_from(["public", "private", "secret"]),
    "importance": st.floats(allow_nan=True, allow_infinity=True) | json_values,
    "confidence": st.floats(min_value=-1, max_value=2),
    "tags": st.lists(st.text(max_size=10), max_size=3) | json_values,
    "metadata": st.dictionaries(meta_keys, meta_values, max_size=3) | json_values,
    "created_at": dates, "valid_until": dates,
    "session": st.text(max_size=12), "added_by": st.text(max_size=12),
    "supersedes": st.text(max_size=12), "links": st.lists(st.text(max_size=8), max_size=2),
    "scope": st.text(max_size=12), "source": st.sampled_from(["user", "import", "robot"]),
    "surplus": json_values,
})


def storable(value: object) -> bool:
    """Whether Neo4j can hold `value` as a property (what validation must guarantee)."""
    if isinstance(value, list):
        kinds = {type(v) for v in value}
        return len(kinds) <= 1 and all(storable(v) for v in value)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return -MAX_INT - 1 <= value <= MAX_INT
    return isinstance(value, float) and math.isfinite(value)


def one_line(e: BaseException) -> bool:
    return "\n" not in str(e) and "\r" not in str(e)


def options() -> planning.WriteOptions:
    return planning.WriteOptions(scope="fuzz", now=NOW, model="m")


@budget(3000)
@given(record=records)
def test_generated_records_validate_or_fail_in_one_line(record: dict, hardening) -> None:
    hardening.inputs += 1
    try:
        rec = validate(record, "gen.jsonl", 7)
        # Planning checks what a record means for its batch (e.g. a scope of its own).
        rows, _ = planning.plan([Numbered(7, rec, "gen.jsonl")], options())
    except InputError as e:
        assert one_line(e) and str(e).startswith("gen.jsonl:7"), str(e)
        return
    except Exception:
        hardening.found["tracebacks"] += 1
        raise
    for row in rows:
        assert all(storable(v) for v in row.props["meta"].values()), row.props["meta"]
        assert all(storable(v) for v in (row.props["tags"], row.props["importance"]))


@budget(3000)
@given(value=json_values)
def test_generated_files_parse_or_fail_in_one_line(value: object, hardening) -> None:
    hardening.inputs += 1
    text = json.dumps(value)
    for data in (text, "\ufeff" + text, text + "\n" + text):
        try:
            parse_records(data, "gen.json", collector=Collector())
        except InputError as e:
            assert one_line(e)
        except Exception:
            hardening.found["tracebacks"] += 1
            raise


FIELDS = ["text", "id", "session", "added_by", "supersedes", "tag", "meta_key", "meta_value",
          "meta_list", "link", "scope"]


def place(secret: str, where: str) -> dict:
    record: dict = {"text": "The deploy checklist lives in the ops wiki"}
    if where == "text":
        record["text"] += f" next to {secret}"
    elif where == "tag":
        record["tags"] = ["ops", secret]
    elif where == "meta_key":
        record["metadata"] = {secret: 1}
    elif where == "meta_value":
        record["metadata"] = {"note": secret}
    elif where == "meta_list":
        record["metadata"] = {"notes": ["fine", secret]}
    elif where == "link":
        record["links"] = [secret]
    else:
        record[where] = secret
    return record


@budget(3000)
@given(secret=st.sampled_from(SECRETS), where=st.sampled_from(FIELDS),
       around=st.text(alphabet=" .,;:()[]'\"\n", max_size=3))
def test_a_secret_in_any_field_is_refused_and_never_echoed(secret: str, where: str,
                                                           around: str, hardening) -> None:
    hardening.inputs += 1
    record = place(around + secret + around if where in ("text", "meta_value") else secret,
                   where)
    try:
        rec = validate(record, "gen.jsonl", 1)
    except InputError as e:
        if secret in str(e):
            hardening.found["secrets echoed"] += 1
        assert secret not in str(e)
        return
    try:
        # A random-looking scope is a legal name (ids look random), so a record naming
        # one is refused for naming another scope than the batch's, without quoting it.
        rows, decided = planning.plan([Numbered(1, rec, "gen.jsonl")], options())
    except InputError as e:
        if secret in str(e):
            hardening.found["secrets echoed"] += 1
        assert secret not in str(e)
        return
    if secret == RANDOM_ONLY and where in NAMES:
        assert rows or not decided[0].reason.startswith("secret scanner"), decided
        return
    if rows:
        hardening.found["secrets stored"] += 1
    assert not rows and decided[0].reason.startswith("secret scanner")
    assert secret not in decided[0].reason


def test_nesting_a_thousand_deep_is_one_line() -> None:
    deep = "[" * 1000 + "]" * 1000
    for data in (deep, '{"text": "a real memory here", "metadata": {"k": ' + deep + "}}"):
        with pytest.raises(InputError, match="nested"):
            parse_records(data, "deep.json")


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00",
                                  "0999-12-31T00:00:00Z"])
def test_dates_out_of_range_are_input_errors(when: str) -> None:
    for field in ("created_at", "valid_until"):
        with pytest.raises(InputError, match=f"field '{field}'.*out of range"):
            validate({"text": "a memory worth keeping", field: when}, "d.json", 1)


def test_a_relative_date_beyond_the_calendar_is_no_entity() -> None:
    found = RuleExtractor().extract("We met 999999999 days ago, and 4 weeks ago in Oslo.", NOW)
    assert [e.key for e in found if e.key.startswith("date:")] == ["date:2026-W40"]


def test_shown_withholds_secrets_and_keeps_one_line() -> None:
    assert shown("a\nb") == "'a\\nb'"
    assert all("withheld" in shown(s) and s not in shown(s) for s in SECRETS)
    assert secret_reason(shown("x" * 500)) is None and len(shown("x" * 500)) < 70


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """graphmem's console entry point in-process: (exit code, stdout, stderr)."""
    from graphmem.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["graphmem", *args]
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


flag_values = st.text(max_size=20) | st.sampled_from(
    ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+01:00", "2023-05-08", "-1", "0",
     "1e309", "nan", "99999999999999999999999", "k=v", "=", "_", *SECRETS])
recall_flags = st.lists(st.tuples(st.sampled_from(
    ["--now", "--since", "--until", "--top-k", "--hops", "--mode", "--alpha", "--scope",
     "--filter", "--layer", "--kind"]), flag_values), max_size=3)
remember_flags = st.lists(st.tuples(st.sampled_from(
    ["--now", "--kind", "--visibility", "--session", "--added-by", "--scope"]), flag_values),
    max_size=3)


@budget(300)
@given(command=st.sampled_from(["recall", "remember"]), data=st.data())
def test_generated_flags_end_in_one_line(command: str, data: st.DataObject,
                                         monkeypatch: pytest.MonkeyPatch, hardening) -> None:
    # Nothing listens on port 1: whatever passes validation meets an unreachable server.
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    hardening.inputs += 1
    flags = data.draw(recall_flags if command == "recall" else remember_flags)
    args = [command, "what do we deploy with?" if command == "recall" else "--text",
            *(["The deploy runs through Argo CD on Fridays"] if command == "remember" else [])]
    for flag, value in flags:
        args += [flag, value]
    try:
        code, out, err = run_cli(args)
    except Exception:
        hardening.found["tracebacks"] += 1
        raise
    assert code in (1, 2), (args, code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, (args, err)
    if any(s in err for s in SECRETS):
        hardening.found["secrets echoed"] += 1
    assert not any(s in err for s in SECRETS), err


def test_an_unreachable_server_is_exit_2() -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
        code, _, err = run_cli(["recall", "anything at all"])
    assert code == 2 and "not reachable" in err


def test_a_mixed_type_list_is_an_input_error_naming_its_place() -> None:
    with pytest.raises(InputError, match=r"m.json:2: field 'metadata'.*one type"):
        validate({"text": "ok text here", "metadata": {"k": [True, 1]}}, "m.json", 2)
