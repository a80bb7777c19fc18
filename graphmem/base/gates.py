"""Write gates: what must never be stored (secrets) and what is not worth storing (noise).

Both gates are pure functions of a text and run before anything is embedded or written.
They return a reason or None. A reason names the kind of problem, never the text that
caused it, so a secret cannot leak through an error message, a log or a report.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# Known credential formats (after gitleaks' rules); each name is what a rejection says.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("an AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
        ("an AWS secret access key",
         r"(?i)aws.{0,20}?(?:secret|private).{0,20}?['\"=:\s][A-Za-z0-9/+]{40}\b"),
        ("a private key block", r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----"),
        ("a GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})"),
        ("a Slack token", r"\bxox[abposr]-(?:\d+-)+[A-Za-z0-9-]{10,}"),
        ("a Slack webhook", r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}"),
        ("an Azure storage key", r"(?i)AccountKey=[A-Za-z0-9+/]{80,}={0,2}"),
        ("an Azure shared access signature", r"(?i)[?&]sig=[A-Za-z0-9%+/]{40,}={0,2}"),
        ("an Azure client secret", r"\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}\b"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ("a Stripe secret key", r"\b[sr]k_live_[0-9A-Za-z]{20,}\b"),
        ("an OpenAI or Anthropic API key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}"),
        ("a JSON web token", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
        # scheme://user:password@host — a placeholder password (`***`, `<pw>`, `$VAR`) is fine.
        ("a connection string with a password",
         r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]+:(?![*x]{3,}@|<[^>]*>@|\$\{?\w+\}?@)[^\s@/]{1,}@[^\s]+"),
        ("a password in a connection string",
         r"(?i)(?:^|;)\s*(?:password|pwd)\s*=\s*(?![*x]{3,}\s*(?:;|$))[^;\s]{4,}\s*(?:;|$)"),
    )
)

# A token worth an entropy check: long, a mix of letters and digits, no spaces.
_CANDIDATE = re.compile(r"[A-Za-z0-9+/_=.~-]{24,}")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_PATHLIKE = re.compile(r"^[A-Za-z0-9_.~-]*(?:/[A-Za-z0-9_.~-]+)+/?$")

#: Shannon entropy (bits per character) above which a mixed token looks random.
ENTROPY_BITS = 4.0


def shannon_entropy(token: str) -> float:
    """Bits of entropy per character of `token`'s character distribution."""
    counts = Counter(token)
    n = len(token)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def _looks_random(token: str) -> bool:
    token = token.strip("=.-_~")
    if len(token) < 24:
        return False
    if _HEX.match(token):
        # Git hashes and checksums are hex: 40- and 64-digit runs are common and harmless.
        return False
    if _PATHLIKE.match(token) and token.count("/") >= 2:
        return False
    has_digit = any(ch.isdigit() for ch in token)
    has_upper = any(ch.isupper() for ch in token)
    has_lower = any(ch.islower() for ch in token)
    if not (has_digit and has_upper and has_lower):
        return False
    return shannon_entropy(token) >= ENTROPY_BITS


def credential_reason(text: str) -> str | None:
    """Which known kind of credential `text` holds ("contains an AWS access key id"), or
    None: the scanner's patterns without its entropy test, for names such as scopes,
    where random-looking ids (an auth provider's user id, a UUID) are ordinary."""
    for name, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return f"contains {name}"
    return None


def secret_reason(text: str) -> str | None:
    """Why `text` may not be stored ("contains an AWS access key id"), or None if it may.

    The secret scanner cannot be turned off.
    """
    if known := credential_reason(text):
        return known
    for token in _CANDIDATE.findall(text):
        if _looks_random(token):
            return "contains a high-entropy token (a likely API key or password)"
    return None


#: Longest stretch of a value an error message quotes.
SHOWN_CHARS = 60


def shown(value: object) -> str:
    """`value` as an error message may quote it: repr'd (so a newline cannot split the
    message), cut to SHOWN_CHARS, and withheld entirely if the secret scanner objects."""
    text = value if isinstance(value, str) else str(value)
    reason = secret_reason(text)
    if reason:
        return f"<value withheld: it {reason}>"
    if len(text) > SHOWN_CHARS:
        return repr(text[:SHOWN_CHARS]) + "…"
    return repr(text)


#: Shorter texts carry too little to recall by (after trimming).
MIN_SIGNAL_CHARS = 12
MIN_SIGNAL_WORDS = 3

_SELF_TALK = re.compile(
    r"(?i)^\s*(?:(?:note to self|reminder to self)\b"
    r"|i (?:should|must|need to|have to|will|'ll|want to) (?:remember|note|store|save|keep)"
    r" (?:this|that|it)\b"
    r"|(?:let me|let's|lets) (?:remember|note|store|save|think)\b"
    r"|(?:remember|note|store|save) (?:this|that)\s*[.!:]?\s*$"
    r"|(?:okay|ok|alright|hmm+|so),? (?:let me|i'll|i will|now i)\b)"
)
_FILLER = re.compile(
    r"(?i)^\s*(?:(?:ok(?:ay)?|sure|thanks?(?: you)?|got it|done|yes|no|noted|cool|great"
    r"|sounds good|makes sense|will do|understood|nothing (?:new|to report)|n/?a|tbd|todo)"
    r"[.!]*\s*)+$"
    r"|^\s*(?:the|this) (?:code|project|app|system|function|file)"
    r" (?:is|was|looks|seems) (?:good|fine|ok(?:ay)?|great|working|important)\.?\s*$"
    r"|^\s*(?:always )?(?:write|use) (?:clean|good|readable) code\.?\s*$"
    r"|^\s*(?:test|testing|tests?) (?:is|are) important\.?\s*$"
)
# Lines that look like a terminal or log, not like something a person would say.
_TOOL_LINE = re.compile(
    r"^\s*(?:\$ |> |>>> |\+\s|-\s{0,2}\d|\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[\d+/\d+\]"
    r"|\[?(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\]?[: ]|Traceback |  File \"|at [\w$.]+\("
    r"|[drwx-]{10}\s|total \d+$|={5,}|-{5,}|\d+ (?:passed|failed))"
)


def signal_reason(text: str) -> str | None:
    """Why `text` is not worth remembering (too short, self-talk, tool output, filler), or None.

    This gate can be relaxed (`--no-signal-gate`); the secret scanner cannot.
    """
    stripped = text.strip()
    if len(stripped) < MIN_SIGNAL_CHARS or len(stripped.split()) < MIN_SIGNAL_WORDS:
        return f"too short to be useful (under {MIN_SIGNAL_CHARS} characters or 3 words)"
    if _SELF_TALK.search(stripped):
        return "self-talk, not a memory"
    if _FILLER.search(stripped):
        return "generic filler that would apply to anything"
    lines = [line for line in stripped.splitlines() if line.strip()]
    if len(lines) >= 5:
        toolish = sum(1 for line in lines if _TOOL_LINE.match(line))
        if toolish / len(lines) >= 0.5:
            return "a tool-output dump (log or terminal lines)"
    return None
