"""Will it run here? (llm/speed_check.py, `domain-drafter models check`) on the tiny real GGUF with real llama.cpp."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from domain_drafter.bench.spec import load_spec
from domain_drafter.cli import main
from domain_drafter.core.errors import ModelError
from domain_drafter.llm.speed_check import (
    check_fits,
    estimate_spec,
    format_report,
    memory_available,
    process_rss,
    speed_check,
)

ROOT = Path(__file__).resolve().parents[2]
EXP1 = ROOT / "resources" / "experiments" / "paper-exp1.toml"


def meminfo_with(tmp_path: Path, available_kib: int) -> Path:
    """A /proc/meminfo-shaped file (the kernel's own layout) saying how much memory is available."""
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       24576000 kB\nMemFree:         1000000 kB\n"
                    f"MemAvailable:   {available_kib:>9} kB\nBuffers:          100000 kB\n", encoding="ascii")
    return path


def test_memory_readings_come_from_proc():
    available, rss = memory_available(), process_rss()
    assert available is not None and available > 100 * 2**20
    assert rss is not None and 10 * 2**20 < rss < available * 4


def test_speed_check_measures_the_tiny_model_on_a_real_prompt(tiny_model):
    report = speed_check(tiny_model, tokens=12)
    assert report.prompt_tokens > 300                 # the paper's prompt: instruction, 3 examples, the query
    assert report.generated_tokens == 12 and report.prompt_tps > 0 and report.generate_tps > 0
    assert report.size == tiny_model.stat().st_size and report.threads >= 1
    assert report.rss_before is not None and report.rss_after is not None and report.memory_used >= 0
    # the resident size may drop while a tiny model loads (other memory freed): never a negative use
    assert dataclasses.replace(report, rss_after=report.rss_before - 2**20).memory_used == 0
    assert report.available_before > 0 and report.warning == ""
    per_answer = report.answer_seconds(300)
    assert per_answer == pytest.approx(report.prompt_tokens / report.prompt_tps + 300 / report.generate_tps)
    estimate = estimate_spec(report, load_spec(EXP1))
    assert (estimate.spec, estimate.tasks, estimate.max_tokens) == ("paper-exp1", 1920, 300)
    assert estimate.total_s == pytest.approx(1920 * per_answer)
    lines = format_report(report, estimate)
    one = dataclasses.replace(report, threads=1)
    assert format_report(one)[0].endswith(", 1 thread:") and format_report(report)[0].endswith(
        f", {report.threads} thread{'' if report.threads == 1 else 's'}:")        # not "1 threads"
    assert lines[2].startswith(f"  prompt (completion format): {report.prompt_tokens} tokens") and "tokens/s" in lines[3]
    assert "paper-exp1: 1,920 answers, at most" in lines[-1]


def test_a_model_larger_than_the_available_memory_is_refused_before_loading(tiny_model, tmp_path):
    meminfo = meminfo_with(tmp_path, 100)             # 100 KiB available: less than the 600 KB file
    with pytest.raises(ModelError) as info:
        speed_check(tiny_model, meminfo=meminfo)
    message = info.value.message
    assert "cannot run here" in message and "only 0 MiB of memory is available" in message
    assert str(tiny_model) in message


def test_a_catalogue_ram_estimate_above_the_available_memory_is_a_warning(tiny_model, tmp_path):
    meminfo = meminfo_with(tmp_path, 10_000)          # ~10 MB: the file fits, a 1 GB estimate does not
    warning = check_fits(tiny_model, ram=10**9, meminfo=meminfo)
    assert "may need about 954 MiB" in warning and "it may swap" in warning
    assert check_fits(tiny_model, ram=None, meminfo=meminfo) == ""
    assert "unknown" in check_fits(tiny_model, meminfo=tmp_path / "no-such-file")


def run_models(capsys, *argv: str) -> tuple[int, str, str]:
    """`domain-drafter models ...` through the real command line (its error-to-exit-code rule included)."""
    code = main(["models", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_models_check_a_path_with_an_experiment_spec(tiny_model, capsys):
    code, out, _ = run_models(capsys, "check", str(tiny_model), "--tokens", "8", "--spec", str(EXP1))
    assert code == 0
    assert out.startswith("tiny-random-llama (tiny-llama.gguf")
    assert "tokens/s" in out and "memory:" in out and "one answer: at most" in out
    assert "paper-exp1: 1,920 answers, at most" in out
    # a search child's answer with speculative decoding and without (llm/speculate.py)
    line = next(x for x in out.splitlines() if x.startswith("  speculative decoding (a search child's answer, "))
    assert " tokens/s with it, " in line and line.endswith("x")


def test_the_report_holds_a_childs_speed_with_speculation_and_without(tiny_model):
    report = speed_check(tiny_model, tokens=12)
    off, on = report.child_tps
    assert report.child_tokens > 1 and off > 0 and on > 0
    assert report.to_dict()["child_tps"] == [off, on] or report.to_dict()["child_tps"] == (off, on)
    assert f"= {on / off:.2f}x" in format_report(report)[-1]


def test_cli_models_check_of_a_catalogue_model_not_yet_installed_says_to_pull_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    code, _, err = run_models(capsys, "check", "qwen2.5-coder-7b")
    assert code == 2 and "not installed" in err and "domain-drafter models pull qwen2.5-coder-7b" in err


def test_a_catalogue_chat_model_is_measured_in_its_chat_template(tmp_path, monkeypatch):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    chat = write_tiny_llama(tmp_path / "Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", chat_template=CHATML_TEMPLATE)
    auto, plain = speed_check(chat, tokens=4), speed_check(chat, tokens=4, prompt_format="completion")
    assert (auto.prompt_format, plain.prompt_format) == ("chat", "completion")
    assert auto.prompt_tokens > plain.prompt_tokens   # the template's turn markers around the same prompt
    assert "(chat format)" in format_report(auto)[2] and auto.to_dict()["prompt_format"] == "chat"


def test_cli_models_check_measures_a_batch_against_one_at_a_time(tiny_model, capsys):
    code, out, _ = run_models(capsys, "check", str(tiny_model), "--tokens", "4", "--batch", "2", "--json")
    assert code == 0
    batch = json.loads(out)["batch"]
    assert batch["batch"] == 2 and batch["one_at_a_time_s"] > 0 and batch["batched_s"] > 0
    assert batch["ratio"] == pytest.approx(batch["one_at_a_time_s"] / batch["batched_s"])
    assert 0 <= batch["answers_differ"] <= 2
    assert ("batching pays here" in batch["verdict"]) == (batch["ratio"] >= 1.2 and not batch["answers_differ"])
    code, out, _ = run_models(capsys, "check", str(tiny_model), "--tokens", "4", "--batch", "2")
    assert code == 0 and "batch of 2 (96 tokens each)" in out and "x;" in out


def test_cli_models_check_refuses_a_batch_below_two(tiny_model, capsys):
    code, _, err = run_models(capsys, "check", str(tiny_model), "--tokens", "4", "--batch", "1")
    assert code != 0 and "--batch must be at least 2" in err
