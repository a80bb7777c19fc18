"""One JSON POST to an OpenAI-compatible endpoint (chat completions, embeddings), with
failures turned into one-line graphmem errors. The standard library is enough for this;
an SDK would add a dependency for two calls."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from graphmem.base.errors import GraphmemError


def post(url: str, body: dict[str, Any], *, api_key: str | None, timeout: float,
         error: type[GraphmemError], what: str) -> Any:
    """POST `body` as JSON to `url` and return the decoded answer; raise `error` naming
    `what` (e.g. "summary endpoint") and the URL on any failure."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as e:
        raise error(f"{what} {url} answered HTTP {e.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        raise error(f"{what} {url} unreachable: {getattr(e, 'reason', e)}") from None
    except ValueError:
        raise error(f"{what} {url} did not answer JSON") from None
