"""Issue 42: no cache file can run code when it is read, and every cache reader takes any bytes as a miss.

The attack: someone who can write a shared cache folder replaces its entries with pickles whose
loading runs a command. The app must read none of them as code, rebuild them, and say once why.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from domain_drafter.core import cache_data
from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.cache_data import CacheEntryRefused, DataCodec


class _RunsCode:
    """Unpickling this runs Python that creates `marker`: what a planted cache entry would do."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"import pathlib; pathlib.Path({str(self.marker)!r}).touch()",))


def planted_pickle(marker: Path) -> bytes:
    return pickle.dumps(_RunsCode(marker), protocol=pickle.HIGHEST_PROTOCOL)


def run_check(cache: Path, answer: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, DOMAIN_DRAFTER_CACHE=str(cache))
    return subprocess.run([sys.executable, "-m", "domain_drafter.cli", "check", "blocksworld", "put-down",
                           str(answer)], capture_output=True, text=True, env=env, timeout=300)


def every_file(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_the_planted_pickle_would_run_code_if_unpickled(tmp_path):
    marker = tmp_path / "ran"
    pickle.loads(planted_pickle(marker))   # the payload works: the test below would catch a pickle reader
    assert marker.exists()


def test_planted_pickles_in_a_world_writable_cache_run_nothing_and_are_rebuilt(tmp_path, bundles):
    cache = tmp_path / "shared-cache"
    answer = tmp_path / "answer.txt"
    answer.write_text(bundles["blocksworld"].domain.action("put-down").to_pddl())
    first = run_check(cache, answer)
    assert first.returncode == 0, first.stderr
    written = every_file(cache)
    assert {p.parent.name for p in written} == {"bundles", "parser"}, written
    folders = [cache, *{p.parent for p in written}]
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o700 for f in folders), "cache folders are the user's alone"

    marker = tmp_path / "planted-code-ran"
    payload = planted_pickle(marker)
    for path in written:   # every name the app writes, and the names earlier versions wrote
        path.write_bytes(payload)
        path.with_suffix(".pickle").write_bytes(payload)
        path.with_suffix(".lark").write_bytes(payload)
    for folder in folders:
        folder.chmod(0o777)   # shared between users, as a cluster's cache folder would be

    again = run_check(cache, answer)
    assert not marker.exists(), "a planted cache entry ran code"
    assert again.returncode == 0 and again.stdout == first.stdout, again.stderr
    refusals = [line for line in again.stderr.splitlines() if "ignored the cached" in line]
    assert len(refusals) == len(written), again.stderr   # one line per kind of entry: bundle, parser tables
    assert all("built it again" in line and "not a cache entry" in line for line in refusals), refusals
    for path in written:   # rebuilt as data over the planted file
        header = json.loads(path.read_bytes())[0]
        assert header["~"] == "dict" and header["v"][1] == ["key", path.stem]
    third = run_check(cache, answer)
    assert third.stderr == "" and third.stdout == first.stdout and not marker.exists()


# -- fuzz: every cache reader, fed random bytes and truncated entries --------------------------------------

def _mutations(good: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted({0, 1, len(good) // 3, len(good) // 2, len(good) - 1} | {rng.randrange(len(good)) for _ in range(6)})
    flipped = bytearray(good)
    for _ in range(8):
        flipped[rng.randrange(len(flipped))] = rng.randrange(256)
    return [good[:c] for c in cuts] + [bytes(flipped), rng.randbytes(200), rng.randbytes(4000),
                                       b"[" * 100_000, b"{" * 50_000, b"\x80\x04K\x01.", planted_pickle(Path("/x")),
                                       json.dumps([{"~": "dict", "v": []}, {"~": "os.system", "v": "true"}]).encode(),
                                       json.dumps([1, 2, 3]).encode(), b'"a string"', b"null"]


def test_every_cache_reader_takes_random_and_truncated_entries_as_misses(tmp_path, monkeypatch, capsys, bundles):
    from domain_drafter.core import parsing
    from domain_drafter.planning.kstar import KStarPlanner
    from domain_drafter.planning.plan_cache import PlanCache
    from domain_drafter.planning.state_cache import StateCache
    from domain_drafter.planning.verdict_cache import VerdictCache

    rng = random.Random(42)
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache_data, "_WARNED", set())
    bundle = bundles["gripper"]
    folder = bundle.folder

    # parsed bundles
    reference = load_bundle(folder)
    [entry] = every_file(tmp_path / "cache" / "bundles")
    good = entry.read_bytes()
    for bad in _mutations(good, rng):
        entry.write_bytes(bad)
        assert load_bundle(folder) == reference
    # the parser's tables
    parsing._parser.cache_clear()
    parsing._parser()
    [tables] = every_file(tmp_path / "cache" / "parser")
    good_tables = tables.read_bytes()
    for bad in _mutations(good_tables, rng)[:12]:   # each miss rebuilds the tables (~0.5 s)
        tables.write_bytes(bad)
        parsing._parser.cache_clear()
        assert parsing._parser().parse("(:action a :parameters () :effect (p))", start="action_def")
    parsing._parser.cache_clear()
    # reference plans and reachable states
    plans = PlanCache(KStarPlanner(k=1), tmp_path / "plans")
    key = plans.key("d", "p")
    plan_path = plans._path(key)
    plan_path.parent.mkdir(parents=True)
    good_plan = json.dumps({"schema": "plans-2", "status": "solved", "plans": [[["pick", "a"]]], "time_limit_s": 60,
                            "message": "m", "command": [], "planner": "x"}).encode()
    plan_path.write_bytes(good_plan)
    assert plans._load(key) is not None
    states = StateCache(tmp_path / "states")
    state_key = states.key("d", "p")
    state_path = states._path(state_key)
    state_path.parent.mkdir(parents=True)
    good_states = json.dumps({"schema": "states-1", "atoms": [["p"]], "states": ["1"], "parent": [-1],
                              "labels": [""], "via": [0], "complete": True, "stopped": ""}).encode()
    state_path.write_bytes(good_states)
    assert states._load(state_key) is not None
    for bad in _mutations(good_plan, rng):
        plan_path.write_bytes(bad)
        assert plans._load(key) is None
    for bad in _mutations(good_states, rng):
        state_path.write_bytes(bad)
        assert states._load(state_key) is None
    # verdicts: a damaged database file, and damaged rows in a sound one
    verdict_path = tmp_path / "verdicts.sqlite"
    for bad in _mutations(b"SQLite format 3\0" + rng.randbytes(3000), rng):
        verdict_path.write_bytes(bad)
        cache = VerdictCache(verdict_path)
        assert cache.get("k") is None
        cache.close()
    verdict_path.unlink()
    db = sqlite3.connect(tmp_path / "rows.sqlite")
    db.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, report TEXT NOT NULL)")
    for i, bad in enumerate(_mutations(b'{"proof": null, "equivalence": null}', rng)):
        db.execute("INSERT INTO verdicts VALUES (?, ?)", (f"k{i}", bad.decode("utf-8", "replace")))
    db.commit()
    db.close()
    cache = VerdictCache(tmp_path / "rows.sqlite")
    assert all(cache.get(f"k{i}") is None for i in range(30))
    cache.close()
    err = capsys.readouterr().err
    assert err.count("ignored the cached parsed bundle") == 1 and err.count("ignored the cached parser tables") == 1


@pytest.mark.parametrize("bad, why", [
    (b"\x80\x04K\x01.", "not a cache entry"),
    (b'[{"~":"dict","v":[["kind","bundle"],["key","other"]]},1]', "written for another entry"),
    (b'[{"~":"dict","v":[["kind","bundle"],["key","k"]]},{"~":"posix.system","v":"true"}]', "unknown tag"),
    (b'[{"~":"dict","v":[["kind","bundle"],["key","k"]]},{"~":"tuple","v":1}]', "malformed tuple"),
    (b'[{"~":"dict","v":[["kind","bundle"],["key","k"]]},{"x":1}]', "not a tagged value"),
])
def test_a_refused_entry_says_why(bad, why):
    with pytest.raises(CacheEntryRefused, match=why):
        DataCodec().loads("bundle", "k", bad)


def test_data_entries_round_trip_every_bundled_bundle(bundles):
    from domain_drafter.core.bundle import _bundle_codec

    codec = _bundle_codec()
    for bundle in bundles.values():
        back = codec.loads("bundle", bundle.name, codec.dumps("bundle", bundle.name, bundle))
        assert back == bundle and back.domain.to_pddl() == bundle.domain.to_pddl()
        assert back.descriptions.predicates == bundle.descriptions.predicates
