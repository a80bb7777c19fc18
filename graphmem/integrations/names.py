"""A framework's names (namespaces, app and user ids, session ids, keys) as graphmem scopes
and ids: escaped so that any label fits and reverses exactly, and checked as every scope
is. No framework is imported here, so each adapter loads only its own."""

from __future__ import annotations

import hashlib
import re

from graphmem.base.errors import InputError, whole_text
from graphmem.base.knobs import MAX_SCOPE_CHARS, check_scope

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


def hashed(label: str) -> str:
    """A label too long to name a scope or an id by: `@@` and its SHA-256 (no escaped
    label starts so: `escape` writes `@` itself as `@40`)."""
    return "@@" + hashlib.sha256(label.encode()).hexdigest()


def scope_of(root: str, *labels: str, field: str = "scope") -> str:
    """The scope `root/label/…` with each label escaped; where the whole would be too long
    for a scope (a user id of 20 CJK characters escapes to 180), its longest labels go by
    their hash (`hashed`), the same for the same label every time; an InputError naming
    `field` when it cannot be one (a credential, or a root too long)."""
    parts = [escape(label, field) or "@" for label in labels]
    for i in sorted(range(len(parts)), key=lambda i: -len(parts[i])):
        if len("/".join([root, *parts])) <= MAX_SCOPE_CHARS:
            break
        parts[i] = hashed(labels[i])
    name = "/".join([root, *parts])
    try:
        return check_scope(name)
    except ValueError as e:
        raise InputError(str(e), field=field) from None
