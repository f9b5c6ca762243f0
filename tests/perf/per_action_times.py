"""Where a search run's time went, per action: a results file's searches read back (issue 38's measure).

    python tests/perf/per_action_times.py RESULTS.sqlite [MORE.sqlite ...]

One line per task (domain, action, status, verdict, model calls, wall seconds, why the search stopped), then the
summary: proven Equivalent, the median and mean seconds per action, calls per action, seconds per call and how a
call splits between reading the prompt (time to the first token) and writing the answer, as each call's stats in
the search tree recorded them. A task in a later file replaces the same task of an earlier one (a rerun).
Reads the files only.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys


def searches(paths: list[str]) -> dict[tuple[str, str], tuple[str, str | None, dict | None]]:
    """(domain, action) -> (status, subclass, generation), later files replacing earlier ones, in task order."""
    rows: dict[tuple[str, str], tuple[str, str | None, dict | None]] = {}
    for path in paths:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            for domain, action, status, subclass, generation in db.execute(
                    "SELECT domain, action, status, subclass, generation FROM tasks ORDER BY ord"):
                if generation or (domain, action) not in rows:
                    rows[(domain, action)] = (status, subclass, json.loads(generation) if generation else None)
    return rows


def main(paths: list[str]) -> None:
    walls, calls, writing, equivalent, tokens = [], [], [], 0, 0
    read_by = {"roots": [], "children": []}     # reading the prompt, a root's (cold) and a child's (after a kept state)
    for (domain, action), (status, subclass, generation) in searches(paths).items():
        if generation is None:
            print(f"{domain:16} {action:16} {status}")
            continue
        search = generation.get("search", {})
        for node in search.get("nodes", []):
            stats = node.get("stats") or {}
            if stats.get("time_to_first_token_s") is not None:
                read_by["roots" if node.get("parent") is None else "children"].append(stats["time_to_first_token_s"])
                writing.append(stats["wall_time_s"] - stats["time_to_first_token_s"])
        walls.append(generation["wall_s"])
        calls.append(generation["calls"])
        tokens += generation["generated_tokens"]
        equivalent += subclass == "Equivalent"
        print(f"{domain:16} {action:16} {status:9} {subclass or '-':11} calls={generation['calls']:2} "
              f"wall={generation['wall_s']:4.0f}s stopped={search.get('stopped')}")
    if not walls:
        sys.exit("no searched task in " + ", ".join(paths))
    reading = read_by["roots"] + read_by["children"]
    print(f"\n{len(walls)} actions judged: {equivalent} proven Equivalent; seconds per action: median "
          f"{statistics.median(walls):.0f}, mean {statistics.mean(walls):.0f}; model calls per action "
          f"{statistics.mean(calls):.1f}; seconds per call {sum(walls) / sum(calls):.1f} (reading the prompt: median "
          f"{statistics.median(reading):.1f}, writing: median {statistics.median(writing):.1f}); tokens written "
          f"{tokens} ({tokens / sum(walls):.2f} per second of wall time)")
    print("reading the prompt, median: " + ", ".join(
        f"{who} {statistics.median(times):.1f} s ({len(times)} calls, {sum(times):.0f} s in all)"
        for who, times in read_by.items() if times))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
