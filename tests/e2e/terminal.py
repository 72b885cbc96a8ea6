"""A program in a real pseudo-terminal (pexpect), its screen read through a terminal emulator
(pyte) as its user sees it, and keys typed as its user types them. What the host tests share
(`tests/hosts/test_fast_agent.py`, `tests/hosts/test_coding_hosts.py`): written once here.

Needs `pexpect` and `pyte` (the hosts' venvs have them); the processes module, standard library
only, does not import this one.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pexpect
import pyte

ROWS, COLUMNS = 50, 160

# The keys a person presses, as a terminal sends them.
ENTER = "\r"
ESC = "\x1b"
TAB = "\t"
UP = "\x1b[A"
DOWN = "\x1b[B"
RIGHT = "\x1b[C"
LEFT = "\x1b[D"
BACKSPACE = "\x7f"


def plain(text: str) -> str:
    """Terminal output without its escape sequences."""
    return re.sub(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]",
                  "", text)


class Terminal:
    """`command` in a pseudo-terminal of `rows` x `columns`; what it draws, through pyte's
    screen. `artifacts`, if given, is a folder where `snap` keeps the screens."""

    def __init__(self, command: str, args: list[str], *, env: dict[str, str], cwd: str,
                 rows: int = ROWS, columns: int = COLUMNS, what: str | None = None,
                 artifacts: Path | None = None) -> None:
        self.what = what or Path(command).name
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)
        self.seen = ""
        self.artifacts = artifacts
        self.snaps = 0
        self.child = pexpect.spawn(command, args, encoding="utf-8", codec_errors="replace",
                                   dimensions=(rows, columns), env=env, cwd=cwd)

    def pump(self, seconds: float = 0.2) -> None:
        """Reads what the program wrote within `seconds` into the screen."""
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=seconds)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            raise AssertionError(f"{self.what} exited; it showed:\n{self.text()}") from None
        self.seen += data
        self.stream.feed(data)

    def idle(self, seconds: float) -> None:
        """Reads for `seconds`: a person's pause, the screen kept up to date."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.pump(min(0.2, max(0.01, deadline - time.monotonic())))

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, pattern: str, seconds: float = 30, since: int | None = None,
                 flags: int = 0) -> re.Match:
        """Until the screen (or, with `since`, the output written since then, for text scrolled
        away) shows `pattern`."""
        deadline = time.monotonic() + seconds
        while True:
            found = re.search(pattern, self.text(), flags)
            if not found and since is not None:
                found = re.search(pattern, plain(self.seen[since:]), flags)
            if found:
                return found
            if time.monotonic() > deadline:
                self.snap(f"timeout-{re.sub(r'[^A-Za-z0-9]+', '-', pattern)[:40]}")
                raise AssertionError(f"waited {seconds}s for {pattern!r}; {self.what} shows:\n{self.text()}")
            self.pump()

    def type(self, keys: str, pause: float = 0.3) -> None:
        """Types `keys`, then reads for `pause` seconds."""
        self.child.send(keys)
        self.idle(pause)

    def type_slowly(self, text: str, pause: float = 0.05) -> None:
        """Types `text` one key at a time, as a person does (some TUIs read a fast burst of keys
        as a paste)."""
        for key in text:
            self.child.send(key)
            self.idle(pause)

    def mark(self) -> int:
        """Where the output written from now on begins (for `wait_for(..., since=)`)."""
        return len(self.seen)

    def snap(self, name: str) -> None:
        """Keeps the screen as it is now in the artifacts folder, as `<nn>-<name>.txt`."""
        if self.artifacts is None:
            return
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.snaps += 1
        (self.artifacts / f"{self.snaps:02d}-{name}.txt").write_text(self.text() + "\n")

    def close(self) -> None:
        if self.artifacts is not None:
            self.artifacts.mkdir(parents=True, exist_ok=True)
            (self.artifacts / "output.log").write_text(plain(self.seen))
        self.child.terminate(force=True)
