"""Progress display: a tqdm bar with ETA and class counts on a terminal, plain lines when piped."""

from __future__ import annotations

import io

from domain_drafter.bench.progress import ProgressPrinter, format_eta
from domain_drafter.bench.runner import Progress
from domain_drafter.cli import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_eta_is_remaining_work_at_this_session_speed():
    p = Progress(total=100, generated=40, evaluated=30, elapsed_s=20.0, started_evaluated=10)
    assert p.eta_s == 70 * 20.0 / 20
    assert Progress(total=10, generated=0, evaluated=0).eta_s is None
    assert format_eta(3725) == "1:02:05" and format_eta(None) == "?"


def test_piped_output_gets_plain_lines_with_counts():
    out = io.StringIO()
    printer = ProgressPrinter(out, every_s=3600)
    printer(Progress(10, 0, 0, {}, message="starting"))
    printer(Progress(10, 3, 2, {"Syntax error": 1, "Equivalent": 1}, 4.0))   # throttled: not printed
    printer(Progress(10, 10, 10, {"Syntax error": 6, "Equivalent": 4}, 9.0, "finished"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue()
    assert lines[-1].startswith("[bench] 10/10 judged, 10 generated, syn=6 sem=0 diff=0 eq=4")
    assert lines[-1].endswith("- finished")


def test_terminal_gets_a_bar_with_eta_and_counts():
    out = Terminal()
    printer = ProgressPrinter(out)
    printer(Progress(8, 2, 1, {"Syntax error": 1}, 1.0))
    printer(Progress(8, 5, 4, {"Syntax error": 3, "Different domain": 1}, 2.0))
    printer.close()
    text = out.getvalue()
    assert "4/8" in text and "syn=3" in text and "diff=1" in text and "<" in text   # tqdm's elapsed<remaining


def test_missing_spec_and_foreign_results_file_are_clear_errors(tmp_path, capsys):
    assert main(["bench", "run", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read the experiment spec" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    assert main(["bench", "report", str(junk), "--out", str(tmp_path / "r")]) == 3
    assert "not a results file" in capsys.readouterr().err
    assert main(["bench", "status", str(tmp_path / "missing.sqlite")]) == 2
