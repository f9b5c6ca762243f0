"""`generate --blind` on the tiny test model: the blind judge decides, the reference's verdict is printed apart."""

from __future__ import annotations

import json

from test_cli import run


def test_generate_blind_prints_the_reference_verdict_separately(capsys, monkeypatch, tmp_path):
    from tiny_gguf import write_tiny_llama

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    common = ("generate", "gripper", "pick", "--model", str(model), "--grammar", "--max-tokens", "48")
    code, out, _ = run(capsys, monkeypatch, *common, "--search", "--blind", "--budget", "2", "--width", "2")
    assert code in (0, 1)
    assert "blind search for gripper/pick: budget 2 model calls" in out and "feedback checks" in out
    head, _, tail = out.partition("reference verdict (for the report only")
    assert tail and "blind judge: " in head
    assert ("Different domain" in tail) or ("Equivalent" in tail) or ("Syntax" in tail) or ("Semantic" in tail)
    assert all("Different domain" not in line for line in head.splitlines() if line.startswith("-- call "))
    code, out, _ = run(capsys, monkeypatch, *common, "--blind", "--json")
    data = json.loads(out)
    assert data["blind"] is True and data["calls"] == 1 and data["best_evaluation"] is None
    assert isinstance(data["blind_accepted"], bool) and data["reference_verdict"]["action"] == "pick"


def test_draft_domain_blind_reports_each_action_and_the_whole_draft(capsys, monkeypatch, tmp_path):
    from tiny_gguf import write_tiny_llama

    monkeypatch.setenv("DOMAIN_DRAFTER_CACHE", str(tmp_path / "cache"))
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    out_dir = tmp_path / "draft"
    code, out, _ = run(capsys, monkeypatch, "draft-domain", "gripper", "--model", str(model), "--grammar",
                       "--search", "--blind", "--budget", "2", "--out", str(out_dir), "--json")
    data = json.loads(out)
    assert data["blind"] is True and [a["action"] for a in data["actions"]] == ["move", "pick", "drop"]
    for a in data["actions"]:
        assert isinstance(a["accepted"], bool) and isinstance(a["right"], bool) and 1 <= a["calls"] <= 2
        assert a["placed"] == a["accepted"]       # only an accepted answer replaces the author's version meanwhile
    assert data["right"] == sum(a["right"] for a in data["actions"]) and data["of"] == 3
    assert data["whole_draft_equivalent"] == (data["verdict"] == "Equivalent")
    assert (code == 0) == data["whole_draft_equivalent"]
    assert (out_dir / "domain.pddl").is_file() and json.loads((out_dir / "blind-draft.json").read_text())["of"] == 3
    code, out, _ = run(capsys, monkeypatch, "draft-domain", "gripper", "--model", str(model), "--grammar",
                       "--search", "--blind", "--budget", "1", "--out", str(tmp_path / "again"))
    assert "drafting gripper blind (3 actions, search, budget 1 per action, with the tests)" in out
    assert sum(1 for line in out.splitlines() if "blind judge: " in line and "reference: " in line) == 3
    assert "right (proven Equivalent): " in out and "whole draft" in out
    code, out, _ = run(capsys, monkeypatch, "draft-domain", "gripper", "--model", str(model), "--grammar",
                       "--search", "--guided", "--blind", "--no-tests", "--budget", "1", "--out",
                       str(tmp_path / "guided"))
    assert "drafting gripper blind (3 actions, guided-search, budget 1 per action, without the tests)" in out
    saved = json.loads((tmp_path / "guided" / "blind-draft.json").read_text())
    assert (saved["strategy"], saved["budget"], saved["tests"]) == ("guided-search", 1, False)


def test_draft_domain_guided_and_no_tests_need_a_blind_search(capsys, monkeypatch, tmp_path):
    for extra, needs in ((("--guided", "--blind"), "--guided needs --search --blind"),
                         (("--no-tests",), "--no-tests needs --blind")):
        code, _, err = run(capsys, monkeypatch, "draft-domain", "gripper", "--out", str(tmp_path / "x"), *extra)
        assert code == 2 and needs in err, err
        assert not (tmp_path / "x").exists()
