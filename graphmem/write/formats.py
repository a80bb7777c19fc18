"""Files `graphmem ingest` reads, turned into records with stable identities.

- `records`: NDJSON / JSONL, a JSON array, or one JSON object of memory records.
- `text`: plain text, a memory per paragraph (blank-line separated).
- `markdown`: a memory per paragraph (default) or per `##` section; code fences stay whole.
- `locomo`: LoCoMo conversations (one object, a list, or the original `locomo10.json`),
  each session a Session with its real date, each turn a memory with its `dia_id`.
- `chat`: the generic transcript format (README, "Chat transcripts"):
  `{"sessions": [{"id", "date", "agent"?, "turns": [{"speaker"|"role", "text"|"content",
  "id"?, "date"?}]}]}`, or one session object with `turns`.

Documents and transcripts are imported verbatim (`source: import`), so the signal gate,
which judges what an agent chooses to remember, does not drop a turn or a paragraph.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from graphmem.base.clock import DATE_RANGE, as_utc
from graphmem.base.errors import InputError
from graphmem.base.gates import shown
from graphmem.base.types import MAX_TEXT_CHARS
from graphmem.base.vocabulary import FORMATS
from graphmem.write.records import Collector, normalise, parse_records

Format = Literal["auto", "records", "text", "markdown", "locomo", "chat"]
Split = Literal["paragraph", "section"]

_SUFFIXES = {".jsonl": "records", ".ndjson": "records", ".md": "markdown",
             ".markdown": "markdown", ".txt": "text", ".text": "text"}
_LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SESSION_KEY = re.compile(r"^session_(\d+)$")


def collect(paths: Iterable[str | Path], fmt: str = "auto", split: str = "paragraph",
            skip_invalid: bool = False) -> Collector:
    """Read and validate every record of `paths` (files or folders) in format `fmt`;
    an InputError for a bad flag, a bad record (unless `skip_invalid`) or no records."""
    if split not in ("paragraph", "section"):
        raise InputError("split must be 'paragraph' or 'section'", field="--split")
    if fmt not in FORMATS:
        raise InputError(f"unknown format {shown(fmt)} (one of {', '.join(FORMATS)})",
                         field="--format")
    collector = Collector(skip_invalid)
    for path in expand(Path(p) for p in paths):
        read(path, fmt, collector, split=split)  # type: ignore[arg-type]
    if not collector.records and not collector.skipped:
        raise InputError("no records found in the input")
    return collector


def expand(paths: Iterable[Path]) -> list[Path]:
    """The files to read: each file as given, and for a folder every file below it whose
    suffix names a format (JSON included), skipping hidden ones, in path order."""
    suffixes = {*_SUFFIXES, ".json"}
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        found = sorted(p for p in path.rglob("*") if p.is_file()
                       and p.suffix.lower() in suffixes
                       and not any(part.startswith(".") for part in p.relative_to(path).parts))
        if not found:
            raise InputError(f"no {', '.join(sorted(suffixes))} files in this folder",
                             source=str(path))
        files += found
    return files


def read_text(path: Path) -> str:
    """A file's text, or an InputError naming the file."""
    try:
        return path.read_text(encoding="utf-8-sig")  # a byte-order mark is not content
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read: {e}", source=str(path)) from None


def detect(path: Path, data: str) -> str:
    """The format of a file, from its suffix and, for JSON, its shape."""
    by_suffix = _SUFFIXES.get(path.suffix.lower())
    if by_suffix:
        return by_suffix
    stripped = data.lstrip()
    if stripped[:1] in "{[":
        try:
            whole = json.loads(data)
        except (json.JSONDecodeError, RecursionError):
            return "records"  # NDJSON, or broken JSON that the records parser will name
        first = whole[0] if isinstance(whole, list) and whole else whole
        if isinstance(first, dict):
            conversation = first.get("conversation", first)
            if isinstance(conversation, dict) and "speaker_a" in conversation:
                return "locomo"
            if "sessions" in first or "turns" in first:
                return "chat"
        return "records"
    raise InputError("cannot tell the format: not JSON or NDJSON, and the name does not end in "
                     ".md or .txt (name it with --format)", source=str(path))


def read(path: Path, fmt: str, collector: Collector, *, split: Split = "paragraph") -> None:
    """Read one file in `fmt` (or detect it) and add its records to `collector`."""
    source = str(path)
    data = read_text(path)
    if not data.strip():
        raise InputError("the file is empty", source=source)
    fmt = detect(path, data) if fmt == "auto" else fmt
    if fmt == "records":
        parse_records(data, source, collector=collector)
    elif fmt in ("text", "markdown"):
        for line, section, text in blocks(data, markdown=fmt == "markdown", split=split):
            metadata: dict[str, Any] = {"file": path.name, "line": line}
            if section:
                metadata["section"] = section
            collector.add({"text": text, "source": "import", "metadata": metadata}, source,
                          line, key=f"doc\0{path.name}\0{section}\0{normalise(text)}",
                          defaults={"kind": "semantic"})
    elif fmt == "locomo":
        read_locomo(_load_json(data, source), source, path.stem, collector)
    elif fmt == "chat":
        _chat(_load_json(data, source), source, collector)
    else:
        raise InputError(f"unknown format {shown(fmt)} (one of {', '.join(FORMATS)})",
                         field="--format")


def _load_json(data: str, source: str) -> Any:
    try:
        return json.loads(data)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno})", source=source,
                         line=e.lineno) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", source=source) from None


def blocks(data: str, *, markdown: bool, split: Split = "paragraph"
           ) -> Iterator[tuple[int, str, str]]:
    """(first line, section path, text) of each paragraph, or of each `##` section.

    Headings name sections and are not memories themselves; a fenced code block is never
    split; a block longer than the text limit is cut at line boundaries.
    """
    headings: list[str] = []
    lines: list[str] = []
    start = 0
    fenced = False
    section = ""

    def flush() -> Iterator[tuple[int, str, str]]:
        text = "\n".join(lines).strip()
        if text:
            yield from _cut(start, section, text)
        lines.clear()

    for number, raw in enumerate(data.splitlines(), start=1):
        if markdown and _FENCE.match(raw):
            fenced = not fenced
        heading = _HEADING.match(raw) if markdown and not fenced else None
        if heading:
            level = len(heading.group(1))
            if split == "paragraph" or level <= 2:
                yield from flush()
            headings[level - 1:] = [heading.group(2)]
            section = " > ".join(h for h in headings if h)
            if split == "section" and level > 2:
                lines.append(raw)
            continue
        if not raw.strip() and not fenced and split == "paragraph":
            yield from flush()
            continue
        if not lines:
            start = number
            if split == "section" and headings:
                lines.append(f"{'#' * min(len(headings), 2)} {headings[-1]}")
        lines.append(raw)
    yield from flush()


def _cut(line: int, section: str, text: str) -> Iterator[tuple[int, str, str]]:
    if len(text) <= MAX_TEXT_CHARS:
        yield line, section, text
        return
    part: list[str] = []
    size = 0
    first = line
    for offset, row in enumerate(text.splitlines()):
        if size + len(row) + 1 > MAX_TEXT_CHARS and part:
            yield first, section, "\n".join(part)
            part, size, first = [], 0, line + offset
        part.append(row[:MAX_TEXT_CHARS])
        size += len(row) + 1
    if part:
        yield first, section, "\n".join(part)


def locomo_date(value: Any, source: str, field: str) -> datetime:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as UTC."""
    try:
        return as_utc(datetime.strptime(str(value).strip(), _LOCOMO_DATE))
    except ValueError:
        raise InputError(f"{shown(value)} is not a date like '1:56 pm on 8 May, 2023'",
                         source=source, field=field) from None


def locomo_sessions(conversation: dict[str, Any]) -> list[int]:
    """The session numbers of a LoCoMo conversation, in order."""
    return sorted(int(m.group(1)) for k in conversation if (m := _SESSION_KEY.match(k)))


def read_locomo(doc: Any, source: str, stem: str, collector: Collector) -> None:
    """Add the turns of a LoCoMo conversation (or a list of them) to `collector`."""
    items = doc if isinstance(doc, list) else [doc]
    for n, item in enumerate(items):
        where = f"[{n}]" if isinstance(doc, list) else ""
        if not isinstance(item, dict):
            raise InputError("expected a LoCoMo conversation object", source=source,
                             field=where or None)
        conversation = item.get("conversation", item)
        name = str(item.get("sample_id") or (stem if len(items) == 1 else f"{stem}-{n}"))
        if not isinstance(conversation, dict) or "speaker_a" not in conversation:
            raise InputError("not a LoCoMo conversation (no speaker_a)", source=source,
                             field=where or None)
        for number in locomo_sessions(conversation):
            key = f"session_{number}"
            turns = conversation[key]
            if not isinstance(turns, list):
                raise InputError("expected a list of turns", source=source, field=where + key)
            date = locomo_date(conversation.get(f"{key}_date_time"), source,
                               f"{where}{key}_date_time")
            for t, turn in enumerate(turns):
                at = f"{where}{key}[{t}]"
                if not isinstance(turn, dict):
                    collector.fail(InputError("expected a turn object", source=source, field=at))
                    continue
                speaker, dia_id, text = turn.get("speaker"), turn.get("dia_id"), turn.get("text")
                missing = next((f for f, v in (("speaker", speaker), ("dia_id", dia_id),
                                               ("text", text)) if not v), None)
                if missing:
                    collector.fail(InputError("missing", source=source, field=f"{at}.{missing}"))
                    continue
                body = f"{speaker}: {text}"
                if turn.get("blip_caption"):
                    body += f" [shares {turn['blip_caption']}]"
                collector.add(
                    {"text": body, "created_at": date, "session": f"{name}/{key}",
                     "source": "import",
                     "metadata": {"conversation": name, "dia_id": str(dia_id),
                                  "speaker": str(speaker), "turn": t}},
                    source, None, where=at, key=f"locomo\0{name}\0{dia_id}",
                    defaults={"kind": "episodic"},
                )


def _chat(doc: Any, source: str, collector: Collector) -> None:
    if isinstance(doc, dict) and "sessions" in doc:
        sessions, prefix = doc["sessions"], "sessions"
    else:
        sessions, prefix = (doc if isinstance(doc, list) else [doc]), ""
    if not isinstance(sessions, list):
        raise InputError("expected a list of sessions", source=source, field="sessions")
    for n, session in enumerate(sessions):
        where = f"{prefix}[{n}]"
        if not isinstance(session, dict) or not isinstance(session.get("turns"), list):
            raise InputError("expected a session object with a list of turns", source=source,
                             field=where)
        name = str(session.get("id") or f"session-{n + 1}")
        date = _iso(session.get("date"), source, f"{where}.date")
        for t, turn in enumerate(session["turns"]):
            at = f"{where}.turns[{t}]"
            if not isinstance(turn, dict):
                collector.fail(InputError("expected a turn object", source=source, field=at))
                continue
            speaker = turn.get("speaker") or turn.get("role")
            text = turn.get("text") if "text" in turn else turn.get("content")
            if not speaker or not isinstance(text, str) or not text.strip():
                field = "speaker" if not speaker else "text"
                collector.fail(InputError("missing", source=source, field=f"{at}.{field}"))
                continue
            turn_id = str(turn.get("id") or t + 1)
            record: dict[str, Any] = {
                "text": f"{speaker}: {text}", "session": name, "source": "import",
                "metadata": {"speaker": str(speaker), "turn_id": turn_id, "turn": t},
            }
            when = _iso(turn.get("date"), source, f"{at}.date") or date
            if when is not None:
                record["created_at"] = when
            if session.get("agent"):
                record["added_by"] = str(session["agent"])
            collector.add(record, source, None, where=at, key=f"chat\0{name}\0{turn_id}",
                          defaults={"kind": "episodic"})


def _iso(value: Any, source: str, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return as_utc(datetime.fromisoformat(str(value)))
    except ValueError:
        raise InputError(f"{shown(value)} is not an ISO-8601 date-time {DATE_RANGE}",
                         source=source, field=field) from None
