"""Front end for coding agents: the proof engine as an MCP server (`domain-drafter mcp`).

`engine.py` holds the warm engine (sync, Qt-free, one per server), `sources.py` turns a tool's domain
arguments (a bundled name, a folder, or inline texts) into a bundle, `errors.py` turns any failure into
a structured tool error, `drafting.py` is the one adapter to the drafting API, `runner.py` runs a tool's
work (on the event loop's thread while it is quick, else in a worker thread), and `server.py` exposes it all
over stdio with the official `mcp` SDK, its messages carried on event-loop pipes by `transport.py`. Named
`agents`, not `mcp`, so it never shadows the SDK.
"""
