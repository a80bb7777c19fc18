"""The consolidation summarisers: extractive, and an OpenAI-compatible chat endpoint
(a local stand-in answers here; the sweep's use of it is tested on the real server)."""

from __future__ import annotations

import socket

import pytest

from graphmem.base.errors import ConfigError
from graphmem.base.settings import load_settings
from graphmem.lifecycle.summarize import (
    MAX_CHARS,
    ChatSummarizer,
    Extractive,
    SummaryError,
    from_settings,
)

TEXTS = ["Priya reviewed the plan. It was long.", "Priya asked for load tests!"]


def test_the_endpoint_gets_the_notes_and_its_answer_is_the_summary(chat_endpoint) -> None:
    chat_endpoint.reply = "  Priya reviewed the billing plan\n and asked for load tests. "
    summarize = ChatSummarizer(chat_endpoint.url + "/", "tiny-model", "sk-test")
    assert summarize("Priya", TEXTS) == ("Priya reviewed the billing plan and asked for "
                                         "load tests.")
    headers, body = chat_endpoint.requests[0]
    assert body["path"] == "/v1/chat/completions"
    assert body["model"] == "tiny-model" and body["temperature"] == 0
    assert headers["Authorization"] == "Bearer sk-test"
    user = body["messages"][-1]["content"]
    assert user.startswith("Topic: Priya") and all(t in user for t in TEXTS)


def test_a_long_answer_is_cut(chat_endpoint) -> None:
    chat_endpoint.reply = "word " * 1000
    text = ChatSummarizer(chat_endpoint.url, "m")("t", TEXTS)
    assert len(text) == MAX_CHARS and text.endswith("…")


@pytest.mark.parametrize(("status", "raw", "reply", "message"), [
    (500, None, "x", "answered HTTP 500"),
    (200, b"<html>", "x", "did not answer JSON"),
    (200, b'{"choices": []}', "x", r"without choices\[0\]\.message\.content"),
    (200, None, "   ", "an empty summary"),
])
def test_an_unusable_answer_is_a_summary_error(chat_endpoint, status, raw, reply,
                                               message) -> None:
    chat_endpoint.status, chat_endpoint.raw, chat_endpoint.reply = status, raw, reply
    with pytest.raises(SummaryError, match=message):
        ChatSummarizer(chat_endpoint.url, "m")("t", TEXTS)


def test_an_unreachable_endpoint_is_a_summary_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SummaryError, match="unreachable"):
        ChatSummarizer(f"http://127.0.0.1:{port}/v1", "m", timeout=2)("t", TEXTS)


def test_settings_choose_the_summariser(monkeypatch) -> None:
    monkeypatch.delenv("GRAPHMEM_SUMMARY_URL", raising=False)
    assert isinstance(from_settings(load_settings()), Extractive)
    monkeypatch.setenv("GRAPHMEM_SUMMARY_URL", "http://localhost:8000/v1")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_MODEL", "llama3")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    chosen = from_settings(load_settings())
    assert isinstance(chosen, ChatSummarizer)
    assert (chosen.url, chosen.name, chosen._key) == (
        "http://localhost:8000/v1/chat/completions", "llama3", "sk-env")
    monkeypatch.setenv("GRAPHMEM_SUMMARY_URL", "localhost:8000")
    with pytest.raises(ConfigError, match="summary_url"):
        load_settings()
