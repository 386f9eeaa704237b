"""The test run's one quick build of the site, started in the background (tests/conftest.py).

`start` claims the run's build (once, whichever pytest-xdist worker comes first) and launches
`python tests/site_build.py FOLDER`, which builds into FOLDER/site-being-built, renames it to
FOLDER/site once `mkdocs build --strict` succeeded, or writes FOLDER/site-build-failed.txt,
then FOLDER/site-build-done. `wait` returns (site, None) or (None, what the build printed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from project import ROOT, build_site

WAIT_S = 1200  # twice the longest a cold quick build has taken on a loaded 2-core machine


def start(folder: Path) -> None:
    try:
        claim = os.open(folder / "site-build-started", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return  # another worker (or an earlier call) started it
    process = subprocess.Popen([sys.executable, __file__, str(folder)], cwd=ROOT)
    os.write(claim, str(process.pid).encode())
    os.close(claim)


def wait(folder: Path) -> tuple[Path | None, str | None]:
    done, pid_file = folder / "site-build-done", folder / "site-build-started"
    deadline = time.monotonic() + WAIT_S
    while not done.is_file():
        pid = int(pid_file.read_text() or 0)
        if pid and not _alive(pid) and not done.is_file():
            return None, f"the build process {pid} died without finishing (killed?)"
        if time.monotonic() > deadline:
            return None, f"the build took over {WAIT_S} s"
        time.sleep(0.2)
    failure = folder / "site-build-failed.txt"
    return (None, failure.read_text(encoding="utf-8")) if failure.is_file() else (folder / "site", None)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a finished child of this process is a zombie until reaped
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:  # not our child: it exists, so it runs
        return True


def main(folder: Path) -> None:
    result = build_site(ROOT, folder / "site-being-built")
    if result.returncode == 0:
        (folder / "site-being-built").rename(folder / "site")
    else:
        (folder / "site-build-failed.txt").write_text(f"{result.stdout}\n{result.stderr}", encoding="utf-8")
    (folder / "site-build-done").touch()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
