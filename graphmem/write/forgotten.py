"""When a text counts as one a hard forget refuses: its forget key.

A tombstone keeps the forgotten text's key (a hash; never the text), and the write path
refuses any text with the same key. The key sees through what leaves a text the same to
a reader (docs/decisions.md, "What forgotten covers"): Unicode compatibility forms and
accents, invisible format characters (zero-width spaces, soft hyphens), a letter of
another script that looks like a Latin one, case, spacing, punctuation, and a leading
speaker ("alice: "), which the chat and LoCoMo importers put before a turn's text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

#: Leading speakers: each a name of at most 40 characters that starts with a letter, a
#: colon and a space ("alice: ", "Dr. Ana Lima: "; a chat import of "alice: T" said by
#: carol stores "carol: alice: T").
SPEAKER = re.compile(r"^(?:[^\W\d_][\w .'’-]{0,39}:\s+)+")


#: ASCII's punctuation (Unicode category P), which `reading` drops.
ASCII_PUNCTUATION = str.maketrans("", "", "".join(
    chr(c) for c in range(128) if unicodedata.category(chr(c)).startswith("P")))


def forget_key(text: str) -> str:
    """SHA-256 of the text as a tombstone compares it (see the module's docstring)."""
    return hashlib.sha256(reading(text).encode("utf-8")).hexdigest()


def reading(text: str) -> str:
    """The text reduced to what a reader tells apart: the string the forget key hashes."""
    plain = text.isascii()  # most texts: no Unicode tables needed
    t = text if plain else "".join(ch for ch in unicodedata.normalize("NFKD", text)
                                   if unicodedata.category(ch) not in ("Cf", "Mn"))
    t = SPEAKER.sub("", t.strip(), count=1).casefold()
    if plain:
        kept = t.translate(ASCII_PUNCTUATION)
    else:
        t = "".join(_latin(ch) for ch in t)
        kept = "".join(ch for ch in t if not unicodedata.category(ch).startswith("P"))
    return " ".join(kept.split()) or " ".join(t.split())  # punctuation only: itself


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    """The ASCII letter or digit `ch` is made to look like (Unicode's confusables), if one."""
    if ch.isascii():
        return ch
    # Loaded here: its table costs ~50 ms at import, and most texts are ASCII.
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin", "common"])
    if found:
        ascii_ = [h["c"] for h in found[0]["homoglyphs"] if h["c"].isascii()]
        if ascii_:
            return ascii_[0].casefold()
    return ch
