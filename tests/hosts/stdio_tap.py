"""`stdio_tap.py <log> <server> [args...]`: runs a stdio MCP server as the host's child would
run, and appends every line the host writes to it (its JSON-RPC messages, `initialize` or
`server/discover` first) to `<log>`. The server's output and stderr go to the host unchanged.
The host tests read the log for what each host sent (its revision, capabilities, clientInfo).

Standard library only.
"""

from __future__ import annotations

import subprocess
import sys


def main() -> int:
    log, command = sys.argv[1], sys.argv[2:]
    server = subprocess.Popen(command, stdin=subprocess.PIPE)
    assert server.stdin is not None
    with open(log, "ab", buffering=0) as kept:
        try:
            for line in sys.stdin.buffer:
                kept.write(line)
                server.stdin.write(line)
                server.stdin.flush()
        except (BrokenPipeError, KeyboardInterrupt):
            pass
    try:
        server.stdin.close()
    except BrokenPipeError:
        pass
    try:
        return server.wait(5)
    except subprocess.TimeoutExpired:
        server.terminate()
        return server.wait()


if __name__ == "__main__":
    sys.exit(main())
