# Two commands on a fresh machine: `make run` and `make test`. Both create .venv and
# install everything first (llama-cpp-python compiles once, then pip's wheel cache reuses it).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup run test perf clean

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
		$(VENV)/bin/domain-drafter-gui; \
	else \
		echo "no display: running the command-line demo (domain-drafter-gui needs a screen)"; \
		$(VENV)/bin/domain-drafter domains; \
		$(VENV)/bin/domain-drafter generate blocksworld put-down --class flipped || true; \
	fi

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -m "not perf" -q

perf: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest tests/perf -m perf -q -s

clean:
	rm -rf $(VENV) build dist app/*.egg-info .pytest_cache
