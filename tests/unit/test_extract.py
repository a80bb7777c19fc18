"""Rule-based entity extraction: code-ish things, proper nouns, dates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.base.errors import ConfigError
from graphmem.graph.keys import entity_prefix
from graphmem.read.association import query_entities
from graphmem.write.extract import RuleExtractor, load_extractor, subject

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def keys(text: str, at: datetime | None = AT) -> list[str]:
    return [e.key for e in RuleExtractor().extract(text, at)]


def test_code_entities() -> None:
    found = keys("The UserService in src/auth/handler.ts calls handleAuth(); set DATABASE_URL, "
                 "pip install httpx, add @prisma/client, Postgres on port 5432 raised "
                 "ValueError and TS2304; docs at https://example.com/docs.")
    for key in ("symbol:UserService", "file:src/auth/handler.ts", "symbol:handleAuth",
                "env:DATABASE_URL", "package:httpx", "package:@prisma/client", "port:5432",
                "error:valueerror", "error:ts2304", "url:https://example.com/docs"):
        assert key in found, key


def test_prose_entities_with_types() -> None:
    refs = {e.key: e.type for e in RuleExtractor().extract(
        "Dr. Smith from the University of Michigan visited Yellowstone National Park with "
        "John Lee and read the book \"Becoming Nicole\".", AT)}
    assert refs["name:smith"] == "person"
    assert refs["name:university of michigan"] == "org"
    assert refs["name:yellowstone national park"] == "place"
    assert refs["name:becoming nicole"] == "title"
    assert "name:john lee" in refs


def test_words_capitalised_by_grammar_are_not_entities() -> None:
    found = keys("Hey Mel! Good to see you. What's up? I'm fine. Thanks, Caroline!")
    assert found == ["name:mel", "name:caroline"]


def test_names_that_begin_with_a_common_word_keep_it_at_a_sentence_start() -> None:
    assert keys("New York City is where Caroline moved.") == ["name:new york city",
                                                              "name:caroline"]
    assert keys("Little Women is the book Mel loves.") == ["name:little women", "name:mel"]
    assert keys("Great job, Caroline!") == ["name:caroline"]  # a prefix word alone is not
    assert keys("New things happen in Berlin.") == ["name:berlin"]
    batch = RuleExtractor().extract_many(["New York was loud.", "I bought a new car."],
                                         [AT, AT])
    assert [e.key for e in batch[0]] == ["name:new york"]  # "new" seen lower case: still


def test_month_abbreviations_are_dates_not_names() -> None:
    assert "name:nov" not in keys("The freeze starts Nov 26 and ends Dec 1.")


def test_a_batch_teaches_which_words_are_common() -> None:
    texts = ["Painting is my favourite thing.", "I love painting with Oscar."]
    batch = RuleExtractor().extract_many(texts, [AT, AT])
    assert [e.key for e in batch[0]] == []
    assert [e.key for e in batch[1]] == ["name:oscar"]


@pytest.mark.parametrize(("phrase", "key"), [
    ("on 2023-04-02", "date:2023-04-02"),
    ("on 12 March, 2021", "date:2021-03-12"),
    ("on March 12th, 2021", "date:2021-03-12"),
    ("in June 2022", "date:2022-06"),
    ("back in 2019", "date:2019"),
    ("yesterday", "date:2023-05-07"),
    ("last Saturday", "date:2023-05-06"),
    ("next Friday", "date:2023-05-12"),
    ("last week", "date:2023-W18"),
    ("last month", "date:2023-04"),
    ("last year", "date:2022"),
    ("two weeks ago", "date:2023-W17"),
    ("3 days ago", "date:2023-05-05"),
])
def test_dates_absolute_and_relative_to_the_memory_time(phrase: str, key: str) -> None:
    assert key in keys(f"We met {phrase} at the cafe.")


def test_relative_dates_need_a_time() -> None:
    assert keys("We met yesterday.", at=None) == []


def test_each_entity_once_in_order_of_mention() -> None:
    assert keys("Redis, then Kafka, then Redis again.") == ["name:redis", "name:kafka"]


def test_load_extractor_by_name_or_import_path() -> None:
    assert isinstance(load_extractor("rules"), RuleExtractor)
    assert isinstance(load_extractor("graphmem.write.extract:RuleExtractor"), RuleExtractor)
    with pytest.raises(ConfigError):
        load_extractor("no.such.module:thing")


@pytest.mark.parametrize(("metadata", "expected"), [
    ({"speaker": "Caroline", "turn": 3}, "name:caroline"),
    ({"title": "Maple  Shelter", "speaker": "Ana"}, "name:maple shelter"),
    ({"subject": "Project Atlas", "title": "Notes"}, "name:project atlas"),
    ({"title": "  "}, None),
    ({"title": 7}, None),
    ({}, None),
])
def test_a_memory_is_about_its_subject_title_or_speaker(metadata, expected) -> None:
    found = subject(metadata)
    assert (found.key if found else None) == expected


def test_a_query_names_the_subjects_it_would_match() -> None:
    # The key a title gets is the key the extractor gives the name in a question.
    assert subject({"title": "Maple Shelter"}).key in keys("Who runs the Maple Shelter?")
    found = query_entities(RuleExtractor(), "Who runs the Maple Shelter?", AT, ["a", "b", "a"])
    assert found == [entity_prefix("a") + "name:maple shelter",
                     entity_prefix("b") + "name:maple shelter"]
    assert query_entities(None, "Who runs the Maple Shelter?", AT, ["a"]) == []
