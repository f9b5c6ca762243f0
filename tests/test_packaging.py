"""A non-editable install carries the domains and the prompt template inside the package, and of the
committed results only the file the app reads."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_domains_and_resources_and_works_without_the_checkout(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(ROOT),
                    "-w", str(tmp_path / "wheel")], check=True, capture_output=True, timeout=300)
    wheel = next((tmp_path / "wheel").glob("domain_drafter-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for domain in ("blocksworld", "trap-newspapers"):
        assert f"domain_drafter/domains/{domain}/domain.pddl" in names
        assert f"domain_drafter/domains/{domain}/descriptions.toml" in names
        assert f"domain_drafter/domains/{domain}/tests.toml" in names
        assert f"domain_drafter/domains/{domain}/problems/p02.pddl" in names
    assert "domain_drafter/resources/prompts/paper.toml" in names
    icon = "io.github.domaindrafter.DomainDrafter"
    assert f"domain_drafter/resources/icons/{icon}.svg" in names   # the window icon
    for size in (16, 32, 48, 64, 128, 256, 512):
        assert f"domain_drafter/resources/icons/hicolor/{size}x{size}/apps/{icon}.png" in names
    assert {"domain_drafter/selftest.py", "domain_drafter/gui/startup/gui_self_test.py"} <= names
    # of the committed results, only the Table 1 the Benchmark dialog shows as its baseline; no figures,
    # reports or answers, and no README screenshots
    results = sorted(n for n in names if n.startswith("domain_drafter/resources/results/"))
    assert results == ["domain_drafter/resources/results/default-exp1/table1.md"]
    assert not [n for n in names if "/screenshots/" in n or n.rsplit("/", 1)[-1].startswith("fig-")]
    assert "domain_drafter/resources/experiments/default-exp1.toml" in names   # the Benchmark dialog's specs

    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import domain_drafter; assert domain_drafter.__file__.startswith(sys.argv[1]), domain_drafter.__file__;"
        "from domain_drafter.core.bundle import load_bundled, bundled_root;"
        "from domain_drafter.core.prompt import build_prompt;"
        "bs = load_bundled(); print(len(bs), sum(len(b.action_names) for b in bs), bundled_root());"
        "print(build_prompt(bs[0], bs[0].action_names[0], bs).text[:40]);"
        "from domain_drafter.core.tests_reader import load_tests;"
        "print('tests', sum(len(load_tests(b).cases) for b in bs))"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(target)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    count, actions, root = done.stdout.splitlines()[0].split(" ", 2)
    assert (count, actions) == ("9", "32")
    assert root.startswith(str(target))
    assert "Given a description of an action" in done.stdout
    assert int(done.stdout.splitlines()[-1].split()[1]) >= 9 * 8   # every domain's tests.toml, read from the wheel
