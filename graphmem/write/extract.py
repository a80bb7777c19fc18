"""Entity extraction: the things a memory mentions, as normalised keys for the graph.

The default `RuleExtractor` finds code-ish entities (file paths, symbols, packages,
environment variables, URLs, ports, error codes) and, in prose, proper-noun spans
(people, places, organisations, titles) and dates, resolving relative dates ("yesterday",
"last week") against the memory's own time. Another extractor can plug in behind the
`Extractor` protocol (setting `entity_extractor = "package.module:factory"`).

Keys: `<type>:<value>` for code-ish things and dates; `name:<casefolded span>` for every
proper noun, whatever type the rules guessed, so "Caroline" is one entity whether a
sentence shows her as a person or a place guess.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from graphmem.base.errors import ConfigError
from graphmem.write.dates import MONTH_ABBR, MONTHS, NUMBER_WORDS, WEEKDAYS, find_dates

ENTITY_TYPES = ("file", "symbol", "package", "env", "url", "port", "error", "date",
                "person", "place", "org", "title", "name")


@dataclass(frozen=True)
class EntityRef:
    """One extracted entity: `key` is its identity in the graph, `name` what people read."""

    key: str
    name: str
    type: str


class Extractor(Protocol):
    """Anything that turns a text (and the time it was written) into entities."""

    def extract(self, text: str, at: datetime | None = None) -> list[EntityRef]:
        """The entities `text` mentions, each once, in order of first mention."""
        ...

    def extract_many(self, texts: Sequence[str],
                     ats: Sequence[datetime | None]) -> list[list[EntityRef]]:
        """`extract` for a batch; a batch lets the rules learn which words are common."""
        ...


_URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]}]+")
_FILE = re.compile(
    r"(?<![\w@/.])(?:~/|\.{1,2}/|/)?(?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*"
    r"\.(?:py|pyi|ts|tsx|js|jsx|mjs|go|rs|java|kt|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|sh|bash"
    r"|md|rst|txt|json|jsonl|ndjson|yaml|yml|toml|ini|cfg|conf|env|sql|cypher|csv|html|css"
    r"|scss|lock|xml|gradle|proto|tf|ipynb|dockerfile)\b"
    r"|(?<![\w@/.])(?:~/|\.{1,2}/|/)?(?:[\w.-]+/){2,}[\w.-]+"
)
_ENV = re.compile(r"\$\{?([A-Z][A-Z0-9_]{2,})\}?|\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")
_CALL = re.compile(r"\b([A-Za-z_][\w.]*)\(\)")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
_SCOPED_PACKAGE = re.compile(r"(?<![\w.])@[a-z0-9][\w.-]*/[a-z0-9][\w.-]*")
_INSTALL = re.compile(
    r"(?i)\b(?:pip3?|uv pip|poetry|npm|pnpm|yarn|cargo|gem|go|apt(?:-get)?|brew|conda)"
    r" (?:install|add|get)\s+(?:-{1,2}[\w-]+\s+)*([@\w][\w.@/-]*(?:\s+[@\w][\w.@/-]*)*)"
)
_IMPORT = re.compile(r"(?m)^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w.]+))")
_PORT = re.compile(
    r"(?i)\bports?\s+(\d{2,5})\b|\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0):(\d{2,5})\b")
_ERROR = re.compile(
    r"\b([A-Z][A-Za-z]*(?:Error|Exception|Warning|Fault))\b"
    r"|\b((?:E|W|TS|CS|ORA|ERR|PG|SQL|HTTP|NU|C)-?\d{3,5})\b"
    r"|(?i:\b(?:error|status|http|exit code)\s+(\d{3}))\b"
)
_QUOTED_TITLE = re.compile(r"[\"“]([A-Z][^\"”\n]{1,80})[\"”]")
_WORKS = ("book", "novel", "movie", "film", "song", "album", "show", "series", "game", "play",
          "poem", "painting", "podcast")
_WORK_TITLE = re.compile(
    rf"(?i:\b(?:{'|'.join(_WORKS)}))"
    r"(?:\s+(?:called|titled|named))?\s+((?:[A-Z][\w'’-]*)(?:\s+(?:of|the|and|a|in|on|to|[A-Z][\w'’-]*))*)"
)
_CAP_SPAN = re.compile(
    r"\b(?:[A-Z][\w'’&-]*|[A-Z]{2,})(?:\s+(?:(?:of|the|de|la|van|von|and|&)\s+)?"
    r"(?:[A-Z][\w'’&-]*))*"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(]\s*|-\s+)$")

_ORG_CUES = {"inc", "corp", "corporation", "llc", "ltd", "company", "co", "university",
             "college", "school", "institute", "bank", "group", "foundation", "association",
             "club", "agency", "department", "church", "hospital", "society", "labs", "lab",
             "academy", "council", "committee", "party", "ministry", "team", "studio",
             "studios", "center", "centre", "organization", "organisation", "charity"}
_PLACE_CUES = {"city", "street", "st", "avenue", "ave", "road", "rd", "park", "lake", "river",
               "mountain", "mountains", "mount", "beach", "island", "islands", "county",
               "state", "country", "valley", "bay", "canyon", "forest", "museum", "square",
               "bridge", "falls", "coast", "desert", "village", "town", "province", "kingdom",
               "republic", "ocean", "sea", "national"}
_HONORIFICS = {"mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "madam", "aunt",
               "uncle", "grandma", "grandpa", "mom", "dad"}
_PLACE_PREPS = {"in", "near", "visited", "visiting"}

# Words that start sentences or are capitalised for grammar, not because they name anything.
_COMMON_WORDS = """
a about above after again against all also although always am among an and another any
anyone anything anyway anyways apparently are around as at aw aww awesome back be
because been before being besides best better both but by can cannot can't cheers
congrats congratulations could couldn't cool dear definitely did didn't do does doesn't
doing done don't down during each either else enjoy especially even eventually ever
every everyone everything exactly excited fantastic few finally first for from fun funny
further gee glad go going good goodbye got great guess had hadn't happy has hasn't have
haven't having he he'd he'll hello her here here's hers herself hey hi him himself his
hmm honestly hope hopefully how however i i'd i'll i'm i've if in indeed instead
interesting is isn't it it's its itself just keep last later let let's like likewise lol
look lots love made make many maybe me meanwhile might mine more moreover most much must
my myself nah nay neither never nevertheless new next nice no nobody none nor not
nothing now of off oh ok okay on once one only oops or other others otherwise ought our
ours ourselves out over overall own perhaps please plus pretty probably quite rather
really right same see seems she she'd she'll she's should shouldn't since so some
somebody someone something sometimes soon sorry sounds still such super sure take thank
thanks that that's the their theirs them themselves then there there's therefore these
they they'd they'll they're they've thing things this those though through thus to today
together tomorrow too totally true truly try two under unfortunately unless until up
upon us usually very was wasn't watch way we we'd we'll we're we've well were weren't
what what's whatever when whenever where whereas wherever whether which while who who's
whoever whole whom whose why will with within without won't wonderful wow would wouldn't
yay yeah yep yes yesterday yet you you'd you'll you're you've your yours yourself
yourselves yup amazing absolutely agreed ah aha alright anyhow btw haha hahaha hm omg
wish tonight morning afternoon evening gonna wanna gotta bye long little big small old
young kind sort lots woah whoa woohoo phew nope oof kudos fyi mm
"""
_COMMON = (set(_COMMON_WORDS.split()) | set(MONTHS) | set(WEEKDAYS) | set(NUMBER_WORDS)
           | _HONORIFICS)
# Common words that begin many place and title names ("New York", "Little Women"): at
# the start of a sentence they are kept when a capitalised, uncommon word follows.
_NAME_PREFIXES = {"new", "old", "great", "little", "big", "grand", "north", "south", "east",
                  "west", "upper", "lower", "saint", "san", "santa", "los", "las", "el", "fort",
                  "mount", "lake", "port", "royal", "united", "good", "red", "black", "white"}
# Capitalised for grammar wherever they stand.
_ALWAYS_COMMON = ({"i", "i'm", "i've", "i'd", "i'll", "ok", "okay"} | _HONORIFICS | set(MONTHS)
                  | (set(MONTH_ABBR) - {"may"})
                  | set(WEEKDAYS) | {d[:3] for d in WEEKDAYS} | {"tues", "thurs"})


#: Metadata that names what a memory is about, most specific first: an explicit subject,
#: a passage's or document's title, a turn's speaker (the subject of what they say of
#: themselves).
SUBJECT_KEYS = ("subject", "title", "speaker")


def subject(metadata: Mapping[str, object]) -> EntityRef | None:
    """The entity a memory is about, from its metadata (`SUBJECT_KEYS`), keyed as a name
    so a query that names it matches; None when the metadata names none."""
    for key in SUBJECT_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return EntityRef(key=f"name:{_fold(value)}", name=value.strip(), type="name")
    return None


def _fold(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().casefold()


def _dates(text: str, at: datetime | None) -> list[tuple[int, EntityRef]]:
    return [(start, EntityRef(key=f"date:{value}", name=value, type="date"))
            for start, value in find_dates(text, at)]


def _classify(span: str, before: str) -> str:
    words = [w.strip(".,'’").lower() for w in span.split()]
    if any(w in _ORG_CUES for w in words):
        return "org"
    if any(w in _PLACE_CUES for w in words):
        return "place"
    prev = before.split()[-1].lower().strip(".,") if before.split() else ""
    if prev in _HONORIFICS:
        return "person"
    if prev in _PLACE_PREPS:
        return "place"
    return "name"


_WORD = re.compile(r"\b[a-z][a-z'’]+\b")


class RuleExtractor:
    """Regular-expression rules for code and prose; fast, deterministic, no model."""

    def extract_many(self, texts: Sequence[str],
                     ats: Sequence[datetime | None]) -> list[list[EntityRef]]:
        """`extract` for a batch: a word seen in lower case anywhere in the batch is common,
        so it does not become an entity when a sentence happens to start with it."""
        lowercase = {w for text in texts for w in _WORD.findall(text)}
        return [self.extract(t, at, lowercase) for t, at in zip(texts, ats, strict=True)]

    def extract(self, text: str, at: datetime | None = None,
                lowercase: set[str] | frozenset[str] = frozenset()) -> list[EntityRef]:
        """The entities `text` mentions, each once, in order of first mention.

        `lowercase` holds words known to be common (seen in lower case elsewhere).
        """
        lowercase = lowercase or set(_WORD.findall(text))
        claims = _Claims()
        lower = text.lower()  # what the rules' hints look for, made once
        _code_refs(text, lower, claims)
        _prose_refs(text, lower, at, lowercase, claims)
        return claims.in_order()


class _Claims:
    """The entities found so far and the spans of text they claim: a span is read once,
    by the first (most specific) rule that matches it."""

    def __init__(self) -> None:
        self.found: list[tuple[int, EntityRef]] = []
        self.claimed: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        """Whether no entity claims any of text[start:end]."""
        return not any(s < end and start < e for s, e in self.claimed)

    def add(self, start: int, end: int, ref: EntityRef) -> None:
        """Claim text[start:end] for `ref`."""
        self.claimed.append((start, end))
        self.found.append((start, ref))

    def in_order(self) -> list[EntityRef]:
        """Each entity once, in order of first mention."""
        seen: set[str] = set()
        out = []
        for _, ref in sorted(self.found, key=lambda item: item[0]):
            if ref.key not in seen:
                seen.add(ref.key)
                out.append(ref)
        return out


#: What a text must hold for some rules to match at all: tested first, since most texts
#: are prose and most of these patterns backtrack at every word.
_FILE_HINT = re.compile(r"/|\.[A-Za-z]")
_ERROR_HINT = re.compile(r"\d|Error|Exception|Warning|Fault")
_CAMEL_HINT = re.compile(r"[a-z0-9][A-Z]")


def _code_refs(text: str, lower: str, claims: _Claims) -> None:
    """URLs, packages, files, environment variables, ports, error codes and symbols
    (`lower`: the text in lower case)."""
    if "://" in text:
        _url_refs(text, claims)
    _package_refs(text, lower, claims)
    if _FILE_HINT.search(text):
        _file_refs(text, claims)
    if "$" in text or "_" in text:
        for m in _ENV.finditer(text):
            name = m.group(1) or m.group(2)
            if claims.free(*m.span()) and len(name) >= 4:
                claims.add(*m.span(), EntityRef(f"env:{name}", name, "env"))
    if ":" in text or "port" in lower:
        for m in _PORT.finditer(text):
            port = m.group(1) or m.group(2)
            if 0 < int(port) < 65536:
                claims.add(*m.span(), EntityRef(f"port:{int(port)}", port, "port"))
    if _ERROR_HINT.search(text):
        for m in _ERROR.finditer(text):
            code = next(g for g in m.groups() if g)
            if claims.free(*m.span()):
                claims.add(*m.span(), EntityRef(f"error:{code.lower()}", code, "error"))
    _symbol_refs(text, claims)


def _url_refs(text: str, claims: _Claims) -> None:
    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".,;:!?")
        claims.add(m.start(), m.start() + len(url), EntityRef(f"url:{url}", url, "url"))


def _package_refs(text: str, lower: str, claims: _Claims) -> None:
    scoped = _SCOPED_PACKAGE.finditer(text) if "@" in text else ()
    for m in scoped:
        if claims.free(*m.span()):
            claims.add(*m.span(), EntityRef(f"package:{m.group(0).lower()}", m.group(0), "package"))
    installs = any(f" {verb}" in lower for verb in ("install", "add", "get"))
    for m in _INSTALL.finditer(text) if installs else ():
        start = m.start(1)
        for name in m.group(1).split():
            name = name.rstrip(".,;")
            pkg = re.split(r"[=<>~!\[]", name)[0]
            if pkg and not pkg.startswith("-"):
                claims.add(start, start + len(name),
                    EntityRef(f"package:{pkg.lower()}", pkg, "package"))
            start += len(name) + 1
    for m in _IMPORT.finditer(text) if "import" in text else ():
        name = m.group(1) or m.group(2)
        top = name.split(".")[0]
        claims.add(m.start(), m.end(), EntityRef(f"package:{top.lower()}", top, "package"))


def _file_refs(text: str, claims: _Claims) -> None:
    for m in _FILE.finditer(text):
        path = m.group(0).rstrip(".")
        if claims.free(m.start(), m.start() + len(path)) and not path.startswith("//"):
            claims.add(m.start(), m.start() + len(path), EntityRef(f"file:{path}", path, "file"))


def _symbol_refs(text: str, claims: _Claims) -> None:
    if "()" in text:
        for m in _CALL.finditer(text):
            if claims.free(*m.span()):
                claims.add(*m.span(), EntityRef(f"symbol:{m.group(1)}", m.group(1), "symbol"))
    if "`" in text:
        for m in _BACKTICK.finditer(text):
            inner = m.group(1).strip()
            if claims.free(m.start(1), m.end(1)) and re.fullmatch(r"[\w.:<>-]+", inner):
                claims.add(m.start(1), m.end(1), EntityRef(f"symbol:{inner}", inner, "symbol"))
    shapes = ([_CAMEL] if _CAMEL_HINT.search(text) else []) + ([_SNAKE] if "_" in text else [])
    for pattern in shapes:
        for m in pattern.finditer(text):
            if claims.free(*m.span()):
                claims.add(*m.span(), EntityRef(f"symbol:{m.group(0)}", m.group(0), "symbol"))


def _prose_refs(text: str, lower: str, at: datetime | None,
                lowercase: set[str] | frozenset[str],
                claims: _Claims) -> None:
    """Dates, titles and proper nouns, where no code entity claimed the text."""
    for start, ref in _dates(text, at):
        if claims.free(start, start + 1):
            claims.add(start, start + 1, ref)
    titles = ([_QUOTED_TITLE] if '"' in text or "“" in text else []) + (
        [_WORK_TITLE] if any(w in lower for w in _WORKS) else [])
    for pattern in titles:
        for m in pattern.finditer(text):
            title = m.group(1).strip(" .,!?;:")
            if claims.free(m.start(1), m.end(1)) and len(title) > 1:
                claims.add(m.start(1), m.end(1), EntityRef(f"name:{_fold(title)}", title, "title"))
    for m in _CAP_SPAN.finditer(text):
        span = _proper_noun(text, m, lowercase)
        if span is not None and claims.free(span[0], span[1]):
            claims.add(*span)


def _proper_noun(text: str, m: re.Match[str],
                 lowercase: set[str] | frozenset[str]) -> tuple[int, int, EntityRef] | None:
    """The proper noun inside a capitalised span, without words capitalised only by grammar."""
    start, end = m.span()
    words = m.group(0).split(" ")
    at_sentence_start = _SENTENCE_START.search(text[:start]) is not None
    while words:
        base = _base(words[0])
        if (base in _NAME_PREFIXES and len(words) > 1 and words[1][:1].isupper()
                and not _common(_base(words[1]), lowercase)):
            break
        if base in _ALWAYS_COMMON or (at_sentence_start and _common(base, lowercase)):
            start += len(words[0]) + 1
            words = words[1:]
            continue
        break
    while words and _base(words[-1]) in _COMMON | {"of", "the", "and", "&", "de", "la"}:
        end -= len(words[-1]) + 1
        words = words[:-1]
    if not words:
        return None
    span = " ".join(_strip_possessive(w) for w in words).strip("-&")
    if len(span) < 2 or span.lower() in _COMMON:
        return None
    return start, end, EntityRef(f"name:{_fold(span)}", span, _classify(span, text[:start]))


def _common(word: str, lowercase: set[str] | frozenset[str]) -> bool:
    head = re.split(r"['’]", word)[0]
    return (word in _COMMON or head in _COMMON or word in lowercase
            or word.endswith(("ing", "ly")))


def _strip_possessive(word: str) -> str:
    return re.sub(r"['’]s$", "", word)


def _base(word: str) -> str:
    return _strip_possessive(word).strip(".,!?;:'’\"").lower()


def load_extractor(spec: str) -> Extractor:
    """The extractor named by configuration: "rules", or "package.module:factory"."""
    if spec == "rules":
        return RuleExtractor()
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"entity_extractor {spec!r} is not 'rules' or 'module:factory'")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"cannot load entity extractor {spec!r}: {e}") from e
    return factory()
