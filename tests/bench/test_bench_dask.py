"""The Dask executor: a real scheduler and worker process started by the test judge the same answers
into the same rows as the local process pool."""

from __future__ import annotations

import json
import os
import sqlite3

from needs import require
from test_bench_import import ANSWERS

from domain_drafter.bench.importer import import_answers
from domain_drafter.cli import main


def test_dask_local_cluster_gives_the_same_rows_as_the_local_pool(tmp_path, monkeypatch):
    require("distributed", "pip install 'dask[distributed]'")
    from distributed import LocalCluster

    source = tmp_path / "answers.jsonl"
    picked = [a for a in ANSWERS if a[0] in ("nopddl", "terror", "noplan", "npapp", "equivalent")]
    source.write_text("\n".join(json.dumps({"id": i, "domain": d, "action": a, "class": "base", "model": "m",
                                            "output": ans}) for i, d, a, ans, _ in picked) + "\n", encoding="utf-8")
    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache-local"))
    import_answers(source, tmp_path / "local.sqlite", workers=1)

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache-dask"))   # no verdicts to reuse
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        assert main(["bench", "import", str(source), "--out", str(tmp_path / "dask.sqlite"),
                     "--executor", f"dask://{address}", "--plain"]) == 0

    def rows(name):
        with sqlite3.connect(tmp_path / name) as db:
            return sorted(db.execute("SELECT key, status, class, subclass, answer, are_total FROM tasks"))

    assert rows("dask.sqlite") == rows("local.sqlite")
    assert {r[3] for r in rows("dask.sqlite")} == {"NoPDDL", "TError", "NoPlan", "NPApp", "Equivalent"}
    with sqlite3.connect(tmp_path / "dask.sqlite") as db:
        pids = {json.loads(r)["worker_pid"] for (r,) in db.execute("SELECT result FROM tasks WHERE class IS NOT NULL")}
    assert os.getpid() not in pids   # judged on the cluster's worker, not here
