"""Summaries for consolidation: extractive by default, or an OpenAI-compatible chat
endpoint when `GRAPHMEM_SUMMARY_URL` names one.

The endpoint is opt-in because it sends memory text off the machine. When it fails
(unreachable, an HTTP error, an empty or malformed answer) consolidation falls back to
the extractive summary and the sweep reports why, so a flaky endpoint never stops one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from graphmem.base.errors import GraphmemError
from graphmem.base.openai_compat import post

if TYPE_CHECKING:
    from graphmem.base.settings import Settings

#: A summary written by the endpoint is cut to this many characters.
MAX_CHARS = 1000

SYSTEM_PROMPT = (
    "You consolidate an AI agent's memories. Given related notes about one topic, write "
    "one short factual memory (at most three sentences) that keeps every name, date and "
    "number they share. No preamble, no bullet points, no speculation."
)


class SummaryError(GraphmemError):
    """The summary endpoint did not give a usable summary."""


class Summarizer(Protocol):
    """Writes one summary of related memory texts about `topic`."""

    name: str

    def __call__(self, topic: str, texts: list[str]) -> str: ...


def extractive(topic: str, texts: list[str], limit: int = 600) -> str:
    """A deterministic extractive summary: the topic, then each text's first sentence."""
    firsts = [re.split(r"(?<=[.!?])\s", t.strip(), maxsplit=1)[0] for t in texts]
    text = f"{topic}: " + " · ".join(firsts)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class Extractive:
    """The default summariser: `extractive`, named so reports can say who wrote it."""

    name = "extractive"

    def __call__(self, topic: str, texts: list[str]) -> str:
        """Summarise `texts` extractively."""
        return extractive(topic, texts)


class ChatSummarizer:
    """Asks an OpenAI-compatible `/chat/completions` endpoint for the summary."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 timeout: float = 30.0) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.name = model
        self._key = api_key
        self.timeout = timeout

    def __call__(self, topic: str, texts: list[str]) -> str:
        """Return the endpoint's summary of `texts`; raise SummaryError when it has none."""
        notes = "\n".join(f"- {t.strip()}" for t in texts)
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                             {"role": "user", "content": f"Topic: {topic}\nNotes:\n{notes}"}]}
        answer = post(self.url, body, api_key=self._key, timeout=self.timeout,
                      error=SummaryError, what="summary endpoint")
        try:
            text = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise SummaryError(
                f"summary endpoint {self.url} answered without choices[0].message.content"
            ) from None
        text = " ".join(str(text or "").split())
        if not text:
            raise SummaryError(f"summary endpoint {self.url} answered an empty summary")
        return text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"


def from_settings(settings: Settings) -> Summarizer:
    """The endpoint named by `summary_url` (GRAPHMEM_SUMMARY_URL), else `Extractive`."""
    if not settings.summary_url:
        return Extractive()
    key = settings.summary_api_key.get_secret_value() if settings.summary_api_key else None
    return ChatSummarizer(settings.summary_url, settings.summary_model, key,
                          timeout=settings.summary_timeout)
