"""The write gates: true positives and near misses, and reasons that never echo a secret."""

from __future__ import annotations

import pytest

from graphmem.base.gates import secret_reason, shannon_entropy, signal_reason
from graphmem.base.knobs import check_scope

SECRETS = {
    "AWS access key id": "deploy with AKIAIOSFODNN7EXAMPLE please",
    "AWS secret access key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "private key block": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA",
    "GitHub token": "use ghp_0123456789abcdefghijABCDEFGHIJ012345 for the API",
    "GitHub fine-grained token": "github_pat_11ABCDEFG0123456789_"
    + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX",
    "Slack token": "bot token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "Azure storage key": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
    + "A" * 43 + "b" * 43 + "==",
    "connection string": "DATABASE_URL=postgres://admin:hunter2@db.internal:5432/app",
    "password pair": "Server=db;Database=app;User Id=sa;Password=S3cretPass!;",
    "high-entropy token": "the signing key is zq8X2pLr9vKt3mWn7bYc5dHs1fJg6aQe",
}

NEAR_MISSES = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Our AWS account lives in eu-west-1; keys are in the vault, never in code.",
    "Connect with postgres://app@db.internal:5432/app (password from $PGPASSWORD)",
    "Placeholders are fine: postgres://admin:***@db:5432/app and mysql://u:<password>@h/db",
    "commit 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a fixed the cache",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "see src/graphmem/retrieval/vector_scan/ExactCosineScanner.py for details",
    "The private key is stored in the KMS, see docs/keys.md",
    "Set GITHUB_TOKEN in the CI settings, not in the repository",
    "https://example.com/path/to/a/long/resource/name?page=2",
    "Password=*** in the sample connection string is a placeholder;",
]


@pytest.mark.parametrize("name", SECRETS)
def test_secret_scanner_catches(name: str) -> None:
    reason = secret_reason(SECRETS[name])
    assert reason is not None and reason.startswith("contains ")


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_secret_scanner_lets_ordinary_text_through(text: str) -> None:
    assert secret_reason(text) is None


@pytest.mark.parametrize("name", SECRETS)
def test_a_reason_never_contains_the_secret(name: str) -> None:
    reason = secret_reason(SECRETS[name]) or ""
    words = [w for w in SECRETS[name].replace("=", " ").split() if len(w) >= 8]
    assert not any(w in reason for w in words)


def test_entropy_of_a_random_token_is_higher_than_of_a_word() -> None:
    assert shannon_entropy("zq8X2pLr9vKt3mWn7bYc5dHs1fJg6aQe") > 4.5
    assert shannon_entropy("aaaaaaaabbbbbbbb") == 1.0


@pytest.mark.parametrize(("text", "why"), [
    ("ok", "too short"),
    ("Sounds good", "too short"),
    ("I should remember this", "self-talk"),
    ("Note to self: the build is flaky", "self-talk"),
    ("Let me remember that for later, okay", "self-talk"),
    ("Thanks! Got it. Sounds good.", "filler"),
    ("The code is good.", "filler"),
    ("Always write clean code.", "filler"),
    ("$ ls -la\ntotal 12\ndrwxr-xr-x 2 u u 4096 .\n-rw-r--r-- 1 u u 10 a\n-rw-r--r-- 1 u u 9 b",
     "tool-output"),
    ("2024-05-01 12:00:01 INFO start\n2024-05-01 12:00:02 INFO load\n"
     "2024-05-01 12:00:03 WARN slow\n2024-05-01 12:00:04 ERROR boom\n2024-05-01 12:00:05 INFO end",
     "tool-output"),
])
def test_signal_gate_rejects(text: str, why: str) -> None:
    reason = signal_reason(text)
    assert reason is not None and why in reason


@pytest.mark.parametrize("text", [
    "Redis is the caching layer; all cache keys use the user: prefix",
    "Deploy: push to main, wait for CI, tag the release, verify staging",
    "I should remember to renew the TLS certificate before June",
    "Always prefer httpx over requests in this codebase",
    "Maria is on call for payments this week",
    "Steps:\n1. build the image\n2. push it\n3. roll out to staging\n4. check the dashboards\n"
    "5. promote to production",
])
def test_signal_gate_keeps_useful_memories(text: str) -> None:
    assert signal_reason(text) is None


@pytest.mark.parametrize("scope", [
    "lg/users/user_2NNEqL2nrIRdJ194ndJqAHwEfxC",  # an auth provider's user id
    "tenant:9f1c2b7e-4d3a-4b8e-9c1f-2a6d5e8b7c40/agent:coder",
    "org_2abCDef9GhIJk1LmNoPqRsTuVw/session:Xy7Qp2Lm9Rt4Vb8Nc3Kd",
])
def test_a_scope_may_hold_ids_that_look_random(scope: str) -> None:
    assert check_scope(scope) == scope


def test_a_scope_holding_a_credential_is_refused_without_quoting_it() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    with pytest.raises(ValueError, match="must not be a secret") as e:
        check_scope(f"users/{token}")
    assert token not in str(e.value)
