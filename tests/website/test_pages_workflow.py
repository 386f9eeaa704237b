"""The GitHub Pages workflow: linted by actionlint and zizmor, and shaped as promised."""

import re
import subprocess

import pytest
import yaml

from project import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_actionlint_finds_nothing(tool):
    result = subprocess.run([tool("actionlint"), "-no-color", str(WORKFLOW.relative_to(ROOT))],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_zizmor_finds_nothing_even_as_an_auditor(tool):
    result = subprocess.run([tool("zizmor"), "--offline", "--persona=auditor", "--no-progress", str(WORKFLOW)],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "No findings" in result.stdout, result.stdout + result.stderr


def test_every_action_is_pinned_to_a_commit_with_its_version(workflow):
    uses = re.findall(r"uses:\s*(\S+)(.*)", WORKFLOW.read_text(encoding="utf-8"))
    assert {u.split("@")[0] for u, _ in uses} >= {"actions/upload-pages-artifact", "actions/deploy-pages"}
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), f"{action}: pin a full commit SHA"
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", comment), f"{action}: say which release the SHA is"


def test_least_privilege_and_no_secrets(workflow):
    text = WORKFLOW.read_text(encoding="utf-8")
    assert workflow["permissions"] == {}, "nothing granted at the top level"
    assert workflow["jobs"]["build"]["permissions"] == {"contents": "read", "pages": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "secrets." not in text and "GITHUB_TOKEN" not in text
    assert workflow["concurrency"]["group"]


def test_main_builds_at_full_size_and_deploys_pull_requests_only_build(workflow):
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["push"]["branches"] == ["main"] and "pull_request" in triggers
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    steps = build["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "pip install -r requirements.lock" in runs and "mkdocs build --strict" in runs
    assert "pip install --no-deps -r requirements.txt" in runs  # torch, kept out of the lock
    assert "requirements-dev" not in runs and "pytest" not in runs, "no test or lint tool (tests/test_install.py)"
    assert "JIT_DOCS_QUICK" not in WORKFLOW.read_text(encoding="utf-8"), "the published site is full size"
    assert next(s for s in steps if "setup-python" in s.get("uses", ""))["with"] == \
        {"python-version-file": ".python-version"}
    assert (ROOT / ".python-version").read_text().strip() == "3.13"
    upload = next(s for s in steps if "upload-pages-artifact" in s.get("uses", ""))
    assert upload["if"] == "github.event_name != 'pull_request'"
    assert "github.event_name != 'pull_request'" in deploy["if"] and deploy["needs"] == "build"
    assert deploy["environment"]["name"] == "github-pages"


def test_the_published_address_and_repository_come_from_the_workflow(workflow):
    """A fork publishes at its own address without editing a file; a local build keeps a default."""
    steps = workflow["jobs"]["build"]["steps"]
    pages = next(s for s in steps if "configure-pages" in s.get("uses", ""))
    build = next(s for s in steps if "mkdocs build" in s.get("run", ""))
    assert build["env"]["BASE_URL"] == f"${{{{ steps.{pages['id']}.outputs.base_url }}}}"
    assert 'export SITE_URL="${BASE_URL%/}/"' in build["run"]
    assert build["env"]["REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r'^site_url: !ENV \[SITE_URL, "http://127\.0\.0\.1:8000/"\]', config, re.M)
    assert re.search(r"^repo_url: !ENV \[REPO_URL, null\]", config, re.M)
    assert "example.invalid" not in config
