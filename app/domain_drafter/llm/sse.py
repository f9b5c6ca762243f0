"""Reading an OpenAI-compatible server's answers: server-sent events, the text of a choice, Retry-After."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator, Mapping
from typing import Any


def choice_text(choice: Mapping[str, Any]) -> str:
    """The text of one choice: `text` (completions), `delta.content` (a streamed chat chunk) or
    `message.content` (a whole chat answer)."""
    if "text" in choice:
        return choice.get("text") or ""
    part = choice.get("delta") or choice.get("message") or {}
    return (part.get("content") or "") if isinstance(part, Mapping) else ""


def role_only(choice: Mapping[str, Any]) -> bool:
    """A streamed chat chunk that only opens the assistant's turn (no token of the answer)."""
    delta = choice.get("delta")
    return isinstance(delta, Mapping) and not delta.get("content") and "role" in delta


def retry_after_seconds(retry_after: str | None) -> float | None:
    """A Retry-After header given in seconds (its HTTP-date form is ignored)."""
    try:
        return max(0.0, float(retry_after)) if retry_after else None
    except ValueError:
        return None


def sse_events(resp: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """JSON payloads of the `data:` events of a server-sent-events stream, until [DONE]."""
    data_lines: list[str] = []
    while True:
        raw = resp.readline()
        if not raw:
            if data_lines:  # stream ended without the blank line after the last event
                payload = "\n".join(data_lines)
                if payload.strip() != "[DONE]":
                    yield json.loads(payload)
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data_lines:
                payload = "\n".join(data_lines)
                data_lines = []
                if payload.strip() == "[DONE]":
                    return
                event = json.loads(payload)
                if isinstance(event, dict) and "error" in event and not event.get("choices"):
                    err = event["error"]
                    msg = err.get("message", err) if isinstance(err, dict) else err
                    raise ValueError(f"the server reported an error: {msg}")
                yield event
            continue
        if line.startswith(":"):  # comment / keep-alive ping
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data_lines.append(value[1:] if value.startswith(" ") else value)
