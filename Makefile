# A contributor's commands (README.md, "Two commands"):
#   make serve    the site at http://127.0.0.1:8000/, rebuilt as you edit
#   make test     the fast tier of the tests (pytest.ini: no site build, browser, audit or script run)
#   make check    every test, as CI runs them (.ci/run): a missing tool fails, never skips
#   make lock     requirements.lock and requirements-dev.lock, from their .txt files
#   make report   tools/build-figures.md (python tools/measure_build.py; ARGS=--twice)
# .venv is made from the locks, again only when a requirements file changed (its stamps:
# .venv/site-installed.txt and .venv/dev-installed.txt, what pip installed).

# Python 3.13 (.python-version, which pyenv and uv read): python3.13 where it is on PATH, else
# python3; .venv is made again when its Python is another release.
PYTHON ?= $(shell command -v python3.13 >/dev/null 2>&1 && echo python3.13 || echo python3)
PYTHON_RELEASE := $(shell cat .python-version)
VENV := .venv
BIN := $(VENV)/bin
SITE_ENV := $(VENV)/site-installed.txt
DEV_ENV := $(VENV)/dev-installed.txt
AUDIT_TOOLS := tools/audit-tools/node_modules/.package-lock.json
# On Linux the package index's torch is a CUDA build (4.6 GB installed with the NVIDIA libraries
# it loads on import): take the CPU build, same pin, from PyTorch's own index (requirements.txt
# then finds it installed), or, where that index cannot be reached, what the package index
# serves, with its dependencies (README.md, What the install costs).
TORCH := torch==2.13.0
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
PIP := $(BIN)/python -m pip --disable-pip-version-check
UV := $(shell test -x $(BIN)/uv && echo $(BIN)/uv || echo uv)
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test check lock report system-tools

serve: $(SITE_ENV)
	$(BIN)/mkdocs serve $(ARGS)

test: $(DEV_ENV)
	$(BIN)/python -m pytest $(ARGS)

# Every tier (-m "" lifts pytest.ini's fast-tier filter), with CI's rule: a test whose tool
# is missing fails instead of skipping (tests/website/conftest.py).
check: $(DEV_ENV) system-tools $(AUDIT_TOOLS)
	CI=true $(BIN)/python -m pytest -m "" --durations=15 $(ARGS)

# uv from requirements-dev.lock once `make test` has installed it, else from PATH (pip install uv)
lock:
	grep -v '# not locked' requirements.txt | $(UV) pip compile - --universal --python-version 3.13 \
	  --generate-hashes --custom-compile-command "make lock (README.md, Reproducible installs)" -q -o requirements.lock
	$(UV) pip compile requirements-dev.txt --universal --python-version 3.13 \
	  --generate-hashes --custom-compile-command "make lock (README.md, Reproducible installs)" -q -o requirements-dev.lock

report: $(SITE_ENV) system-tools $(AUDIT_TOOLS)
	$(BIN)/python tools/measure_build.py $(ARGS)

$(SITE_ENV): requirements.lock requirements.txt .python-version
	@$(PYTHON) -c 'import sys; sys.exit(not sys.version.startswith("$(PYTHON_RELEASE)."))' 2>/dev/null \
	  || { echo "The site needs Python $(PYTHON_RELEASE) (.python-version), and '$(PYTHON)' is not it: install it"; \
	       echo "(pyenv install $(PYTHON_RELEASE), uv python install $(PYTHON_RELEASE), or your system's package), then run"; \
	       echo "make again, or name it: PYTHON=/path/to/python$(PYTHON_RELEASE) make $(MAKECMDGOALS)"; exit 1; }
	$(BIN)/python -c 'import sys; sys.exit(not sys.version.startswith("$(PYTHON_RELEASE)."))' 2>/dev/null \
	  || { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(PIP) install -q -r requirements.lock
	if [ "$$(uname -s)" = Linux ]; then \
	  $(PIP) install -q --no-deps --timeout 15 --retries 1 --index-url $(TORCH_CPU_INDEX) $(TORCH) \
	  || $(PIP) install -q $(TORCH); fi
	$(PIP) install -q --no-deps -r requirements.txt
	$(PIP) freeze > $@

$(DEV_ENV): $(SITE_ENV) requirements-dev.lock requirements-dev.txt
	$(PIP) install -q -r requirements-dev.lock
	$(PIP) freeze > $@

# Lighthouse and the Nu Html Checker, pinned by their package-lock.json. --ignore-scripts:
# vnu-jar's install script would download a Java runtime. Without npm, nothing to do here:
# the audits then say what to install.
$(AUDIT_TOOLS): tools/audit-tools/package-lock.json | system-tools
	if command -v npm >/dev/null; then \
	  npm ci --ignore-scripts --no-audit --no-fund --prefix tools/audit-tools; fi

# The browser tests drive Debian's Chromium; the audits also need Java and Node. Installed
# where missing when this user may (root, or sudo without a password), else named.
system-tools:
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v java >/dev/null || missing="$$missing default-jre-headless"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" -eq 0 ]; then sudo=""; \
	elif sudo -n true 2>/dev/null; then sudo="sudo"; \
	else echo "not installed:$$missing (apt-get install$$missing): the browser tests and audits need them"; exit 0; fi; \
	echo "+ apt-get install$$missing (for the browser tests and page audits)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$sudo apt-get update -q && $$sudo apt-get install -y -q $$missing
