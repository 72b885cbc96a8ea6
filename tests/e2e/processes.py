"""What the end-to-end files that start servers as child processes on loopback share: a free
port, the wait for a process to listen on it, and its stop.

Imported by `test_axum_login_server.py`, `tests/fleet/test_fleet.py` and
`tests/hosts/test_fast_agent.py` (the last two put this folder on `sys.path`). Standard library
only: the fast-agent venv runs it on Python 3.13, the others on the `mcp` venv's Python. The
pseudo-terminal and screen helpers the host tests share are `terminal.py` (pexpect and pyte).
"""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """A loopback port no one listens on now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, what: str, process: subprocess.Popen | None = None, seconds=30) -> None:
    """Until something listens on `port` of 127.0.0.1; fails naming `what` if `process` exits
    first or nothing listens within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {seconds}s")


def stop(process: subprocess.Popen) -> None:
    """Stops `process` if it still runs: SIGTERM, then SIGKILL after 5 s."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
