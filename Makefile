# Two commands on a fresh machine: `make run` and `make test`. Both create .venv and
# install everything first (llama-cpp-python compiles once, then pip's wheel cache reuses it).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup run test test-model perf screenshots clean package test-package

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# Starts the desktop app; on a machine without a display it shows the engine end to end
# from the CLI instead: the embedded model writes blocksworld's put-down, then K* judges it.
run: $(STAMP)
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$(uname)" = Darwin ]; then \
		$(PY) -m domain_drafter.gui.startup.platform_check >/dev/null || exit 1; \
		$(VENV)/bin/domain-drafter-gui; \
	else \
		echo "no display: running the command-line demo (domain-drafter-gui needs a screen)"; \
		$(VENV)/bin/domain-drafter domains; \
		$(VENV)/bin/domain-drafter generate blocksworld put-down --class flipped || true; \
	fi

# System packages for Qt's xcb plugin and Xvfb (apt-get as root; elsewhere it only says what is missing).
test: $(STAMP)
	-sh packaging/linux-system-packages.sh
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -m "not perf and not package and not model" -q

# The default model over many prompts (e.g. grammar mode on all 32 actions x 3 classes): too long for CI.
test-model: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -m model -q -s

# Rewrites resources/screenshots/ (1280x800 and 1920x1080, light and dark) from the real window.
screenshots: $(STAMP)
	DOMAIN_DRAFTER_SCREENSHOTS=resources/screenshots QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/gui/test_gui_screenshots.py -q

perf: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/perf -m perf -q -s

# The desktop app as one folder, dist/domain-drafter/ (run dist/domain-drafter/domain-drafter --self-test),
# and a .tar.gz of it beside it. The spec reads the version from pyproject.toml.
PKG_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
PKG_TARBALL := dist/domain-drafter-$(PKG_VERSION)-linux-$(shell uname -m).tar.gz
PYINSTALLER := pyinstaller>=6.10

package: $(STAMP)
	$(PY) -m pip install -q '$(PYINSTALLER)'
	$(PY) -m PyInstaller --noconfirm --clean --log-level WARN --distpath dist --workpath build/pyinstaller \
		packaging/domain-drafter.spec
	tar -C dist -czf $(PKG_TARBALL) domain-drafter
	@du -sh dist/domain-drafter $(PKG_TARBALL)

# Packaging tests: the wheel in a fresh venv and the PyInstaller folder, each passing --self-test.
test-package: $(STAMP)
	$(PY) -m pip install -q '$(PYINSTALLER)'
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/packaging tests/test_packaging.py -m package -q -s

clean:
	rm -rf $(VENV) build dist app/*.egg-info .pytest_cache
