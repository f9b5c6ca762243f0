"""A real HTTP server on 127.0.0.1 that answers like the Hugging Face hub's file endpoint.

`huggingface_hub` (what llm/download.py uses) asks HEAD /{repo}/resolve/{revision}/{file} and
needs X-Repo-Commit, an ETag and Content-Length; it then GETs the same URL, with
`Range: bytes=N-` to resume. This server does exactly that, from files held in memory, and can
misbehave on purpose the ways the network and the hub do:

* drop_after: the first GET of a file sends the headers and that many bytes of the body, then
  closes the connection (a dropped connection mid-transfer);
* refuse: every request gets that HTTP status (403 is a gated repository, as the hub says it);
* rate: bytes per second, so a test can press Stop while a download is under way.

The ETag is the content's sha256, as the hub's ETag of a large (LFS) file is. `requests` records
(method, path, Range header) of every request. Point a client at it with HF_ENDPOINT=server.url.
"""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubFiles:
    """What the server serves and how it misbehaves; tests may change the fields while it runs."""

    files: dict[str, bytes] = field(default_factory=dict)   # "owner/name/filename" -> content
    drop_after: int | None = None
    refuse: int | None = None
    rate: float | None = None
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    etag_override: str | None = None      # an ETag that is not the content's sha256
    _dropped: set[str] = field(default_factory=set)

    def add(self, repo: str, filename: str, content: bytes) -> None:
        self.files[f"{repo}/{filename}"] = content


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub: HubFiles  # set on the subclass made per server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        hub = self.hub
        hub.requests.append((self.command, self.path, self.headers.get("Range")))
        if hub.refuse is not None:
            return self._error(hub.refuse, "GatedRepo" if hub.refuse == 403 else None)
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            return self._error(404, "RepoNotFound")
        repo, filename = "/".join(parts[:2]), "/".join(parts[4:])
        content = hub.files.get(f"{repo}/{filename}")
        if content is None:
            known = any(k.startswith(repo + "/") for k in hub.files)
            return self._error(404, "EntryNotFound" if known else "RepoNotFound")
        start = 0
        ranged = self.headers.get("Range")
        if ranged and ranged.startswith("bytes="):
            start = int(ranged[len("bytes="):].split("-", 1)[0] or 0)
        length = len(content) - start
        self.send_response(206 if start else 200)
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("ETag", f'"{hub.etag_override or hashlib.sha256(content).hexdigest()}"')
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(length))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(content) - 1}/{len(content)}")
        self.end_headers()
        if not body:
            return
        key = f"{repo}/{filename}"
        drop = hub.drop_after if key not in hub._dropped and not start else None
        if drop is not None:
            hub._dropped.add(key)
            self._send(content[start:start + drop])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)   # the transfer dies mid-body
            self.close_connection = True
            return
        self._send(content[start:])

    def _send(self, data: bytes) -> None:
        step = 1 << 16
        for i in range(0, len(data), step):
            if self.hub.rate:
                time.sleep(step / self.hub.rate)
            try:
                self.wfile.write(data[i:i + step])
            except (BrokenPipeError, ConnectionResetError):   # the client stopped reading (Stop)
                self.close_connection = True
                return

    def _error(self, status: int, code: str | None) -> None:
        self.send_response(status)
        if code:
            self.send_header("X-Error-Code", code)
            self.send_header("X-Error-Message", f"{code} (test hub)")
        if status != 404:
            self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextmanager
def serve_hub(hub: HubFiles) -> Iterator[str]:
    """Serve `hub` on 127.0.0.1 (a free port) in a thread; yields the base URL for HF_ENDPOINT."""
    handler = type("HubHandler", (_Handler,), {"hub": hub})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="test-hub", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


MIB = 1 << 20
HUB_REPO, HUB_FILE = "test/tiny-GGUF", "tiny-llama.Q8.gguf"   # where the download tests' hub serves the model


def hub_gguf(path: Path, size: int, seed: int = 0) -> Path:
    """The tiny test GGUF (tests/support/tiny_gguf.py) padded with zeros to `size` bytes.

    Bytes after the tensor data are ignored by llama.cpp and by the header check, so the file is
    still a loadable model; the padding makes it span several of huggingface_hub's transfer
    chunks (1 MiB with llm/download.py), which a resume after a drop mid-file needs.
    """
    from tiny_gguf import write_tiny_llama

    write_tiny_llama(path, seed=seed)
    with path.open("ab") as f:
        f.truncate(max(size, path.stat().st_size))
    return path
