"""Reading files: text, Markdown, LoCoMo and chat transcripts (no server)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.base.errors import InputError
from graphmem.write import formats
from graphmem.write.records import Collector

MARKDOWN = """# Runbook

Intro paragraph about the service.

## Deploy

Push to main and wait for CI.

```bash
make release

make verify
```

### Rollback
Revert the tag.

## On call
Maria this week.
"""

LOCOMO = {
    "speaker_a": "Ann", "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Ben!"},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "I adopted a dog yesterday.",
         "img_url": ["x"], "blip_caption": "a photo of a puppy"},
    ],
    "session_2_date_time": "10:00 am on 20 May, 2023",
    "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "How is the dog?"}],
    "qa": [],
}


def read(tmp_path: Path, name: str, data: str | object, fmt: str = "auto", **kw) -> Collector:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    collector = Collector(kw.pop("skip_invalid", False))
    formats.read(path, fmt, collector, **kw)
    return collector


def test_markdown_paragraphs_keep_fences_whole_and_name_sections(tmp_path: Path) -> None:
    got = read(tmp_path, "runbook.md", MARKDOWN).records
    texts = [n.record.text for n in got]
    assert texts == ["Intro paragraph about the service.", "Push to main and wait for CI.",
                     "```bash\nmake release\n\nmake verify\n```", "Revert the tag.",
                     "Maria this week."]
    assert [n.record.metadata["section"] for n in got] == [
        "Runbook", "Runbook > Deploy", "Runbook > Deploy", "Runbook > Deploy > Rollback",
        "Runbook > On call"]
    assert [n.line for n in got] == [3, 7, 9, 16, 19]
    assert all(n.record.source == "import" and n.defaults == {"kind": "semantic"} for n in got)


def test_markdown_by_section(tmp_path: Path) -> None:
    got = read(tmp_path, "runbook.md", MARKDOWN, split="section").records
    assert [n.record.text.splitlines()[0] for n in got] == [
        "# Runbook", "## Deploy", "## On call"]
    assert "### Rollback" in got[1].record.text


def test_paragraph_keys_are_stable_and_distinct(tmp_path: Path) -> None:
    first = [n.key for n in read(tmp_path, "a.md", MARKDOWN).records]
    again = [n.key for n in read(tmp_path, "a.md", MARKDOWN).records]
    assert first == again and len(set(first)) == len(first)


def test_plain_text_has_no_sections(tmp_path: Path) -> None:
    got = read(tmp_path, "notes.txt", "first para\nstill first\n\n\nsecond para\n").records
    assert [(n.line, n.record.text) for n in got] == [(1, "first para\nstill first"),
                                                      (5, "second para")]


def test_locomo_turns_keep_dia_ids_speakers_and_session_dates(tmp_path: Path) -> None:
    got = read(tmp_path, "conv-1.json", LOCOMO).records
    assert [n.record.metadata["dia_id"] for n in got] == ["D1:1", "D1:2", "D2:1"]
    assert got[1].record.text == "Ben: I adopted a dog yesterday. [shares a photo of a puppy]"
    assert got[0].record.created_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert got[2].record.created_at == datetime(2023, 5, 20, 10, 0, tzinfo=UTC)
    assert [n.record.session for n in got] == ["conv-1/session_1"] * 2 + ["conv-1/session_2"]
    assert len({n.key for n in got}) == 3


def test_original_locomo10_list_format(tmp_path: Path) -> None:
    got = read(tmp_path, "locomo10.json",
               [{"sample_id": "conv-9", "conversation": LOCOMO, "qa": []}]).records
    assert got[0].record.session == "conv-9/session_1"


def test_a_bad_locomo_date_names_the_field(tmp_path: Path) -> None:
    bad = dict(LOCOMO, session_2_date_time="someday")
    with pytest.raises(InputError, match=r"conv-1.json: field 'session_2_date_time'"):
        read(tmp_path, "conv-1.json", bad)


def test_chat_format(tmp_path: Path) -> None:
    doc = {"sessions": [{"id": "standup", "date": "2024-05-01T09:00:00Z", "agent": "bot",
                         "turns": [{"speaker": "alice", "text": "The deploy is blocked."},
                                   {"role": "assistant", "content": "I will check CI.",
                                    "id": "t2"}]}]}
    got = read(tmp_path, "chat.json", doc).records
    assert [n.record.text for n in got] == ["alice: The deploy is blocked.",
                                            "assistant: I will check CI."]
    assert [n.record.metadata["turn_id"] for n in got] == ["1", "t2"]
    assert {n.record.session for n in got} == {"standup"}
    assert {n.record.added_by for n in got} == {"bot"}


def test_chat_turn_without_text_is_named(tmp_path: Path) -> None:
    doc = {"sessions": [{"id": "s", "turns": [{"speaker": "a"}]}]}
    with pytest.raises(InputError, match=r"field 'sessions\[0\].turns\[0\].text': missing"):
        read(tmp_path, "chat.json", doc)
    skipped = read(tmp_path, "chat.json", doc, skip_invalid=True)
    assert skipped.records == [] and len(skipped.skipped) == 1


def test_format_detection(tmp_path: Path) -> None:
    assert formats.detect(Path("a.jsonl"), "") == "records"
    assert formats.detect(Path("a.json"), json.dumps(LOCOMO)) == "locomo"
    assert formats.detect(Path("a.json"), '{"turns": []}') == "chat"
    assert formats.detect(Path("a.json"), '[{"text": "x"}]') == "records"
    with pytest.raises(InputError, match="cannot tell the format"):
        formats.detect(Path("a.bin"), "plain words")


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        read(tmp_path, "e.md", "\n\n")
