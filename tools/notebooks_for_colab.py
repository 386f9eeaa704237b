"""Write each notebook template's unexecuted edition beside it: notebooks/X.py -> X.ipynb,
and the Korean edition's notebooks/ko/X.py -> notebooks/ko/X.ipynb.

Colab opens notebooks only from a repository, never from the site, so these are committed
(the site's Colab links: sitebuild/downloads.py `colab_url`). An author's command, never
run by the build; tests/tools/test_notebooks_for_colab.py says when one is stale:

    python tools/notebooks_for_colab.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sitebuild"))
import notebooks  # noqa: E402


def for_colab(template: Path) -> Path:
    """Where the unexecuted edition of `template` is committed: beside it."""
    return template.with_suffix(".ipynb")


def templates(root: Path = ROOT) -> list[Path]:
    """Every notebook template: the English ones, then their Korean editions."""
    return sorted((root / "notebooks").glob("*.py")) + sorted((root / "notebooks" / "ko").glob("*.py"))


def write_for_colab(root: Path = ROOT) -> list[Path]:
    """Every template's unexecuted edition, written beside it, expanded with the site's
    own pymdownx.snippets settings."""
    from mkdocs.config import load_config

    snippets_config = load_config(str(root / "mkdocs.yml")).mdx_configs.get("pymdownx.snippets", {})
    written = []
    for template in templates(root):
        for_colab(template).write_text(notebooks.expand(template, snippets_config), encoding="utf-8")
        written.append(for_colab(template))
    return written


if __name__ == "__main__":
    for path in write_for_colab():
        print(f"wrote {path.relative_to(ROOT)}")
