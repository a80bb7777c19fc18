"""A framework's names (namespaces, app and user ids, session ids, keys) as graphmem scopes
and ids: escaped so that any label fits and reverses exactly, and checked as every scope
is. No framework is imported here, so each adapter loads only its own."""

from __future__ import annotations

import re

from graphmem.errors import InputError, whole_text
from graphmem.knobs import check_scope

_SAFE = re.compile(r"[A-Za-z0-9_:-]")
_ESCAPED = re.compile(r"(?:@[0-9A-F]{2})+")


def escape(label: str, field: str = "name") -> str:
    """`label` with every character outside letters, digits, `_ : -` written as `@XX`
    per UTF-8 byte, so it fits a scope or an id and reverses exactly (`unescape`); an
    InputError naming `field` for a label that is not Unicode text (a lone surrogate)."""
    whole_text(label, field)
    return "".join(c if _SAFE.fullmatch(c) else "".join(f"@{b:02X}" for b in c.encode())
                   for c in label)


def unescape(text: str) -> str:
    """The label `escape` made `text` from."""
    return _ESCAPED.sub(lambda m: bytes.fromhex(m.group(0).replace("@", "")).decode(), text)


def scope_of(root: str, *labels: str, field: str = "scope") -> str:
    """The scope `root/label/…` with each label escaped; an InputError naming `field` when
    it cannot be one (too long, or a credential)."""
    name = "/".join([root, *(escape(label, field) or "@" for label in labels)])
    try:
        return check_scope(name)
    except ValueError as e:
        raise InputError(str(e), field=field) from None
