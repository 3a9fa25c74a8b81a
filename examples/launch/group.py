"""A tiny stand-in for a distributed launcher, so the `kb run` examples need no GPU and no
PyTorch: it starts N worker processes (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT in their
environment, as torchrun sets them), serves them a barrier over loopback TCP (what a c10d store
does for a real job), prefixes each worker's output lines with `[rankN]:` as PyTorch does, and
exits non-zero when a worker fails (after stopping the others).

A worker calls `barrier(name)`: it returns once every rank has called the same name.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

WORLD = int(os.environ.get("EXAMPLE_NPROC", "4"))


def barrier(name: str) -> None:
    """Blocks until every rank has reached the barrier `name` (like a collective)."""
    addr = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
    with socket.create_connection(addr) as conn:
        conn.sendall(name.encode() + b"\n")
        conn.recv(1)  # the store answers once all ranks arrived


def _serve(server: socket.socket, world: int) -> None:
    waiting: dict[str, list[socket.socket]] = {}
    lock = threading.Lock()

    def handle(conn: socket.socket) -> None:
        name = conn.makefile("rb").readline().strip().decode()
        with lock:
            group = waiting.setdefault(name, [])
            group.append(conn)
            if len(group) == world:
                for c in waiting.pop(name):
                    c.sendall(b"1")
                    c.close()

    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def _pump(rank: int, stream: object, out: object) -> None:
    for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
        out.write(f"[rank{rank}]:".encode() + raw)  # type: ignore[attr-defined]
        out.flush()  # type: ignore[attr-defined]


def launch(module: str, world: int = WORLD) -> int:
    """Starts `world` workers running `python -m module --worker`; returns the exit code."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    threading.Thread(target=_serve, args=(server, world), daemon=True).start()
    procs = []
    pumps = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))  # fmt: skip
        p = subprocess.Popen([sys.executable, "-m", module, "--worker"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        procs.append(p)
        for stream, out in ((p.stdout, sys.stdout.buffer), (p.stderr, sys.stderr.buffer)):
            t = threading.Thread(target=_pump, args=(rank, stream, out), daemon=True)
            t.start()
            pumps.append(t)
    print(f"launcher: started {world} workers, pids {[p.pid for p in procs]}", flush=True)
    code = 0
    pending = set(range(world))
    while pending:
        for rank in sorted(pending):
            status = procs[rank].poll()
            if status is None:
                continue
            pending.discard(rank)
            if status != 0 and code == 0:
                how = (f"signal {-status} ({signal.Signals(-status).name})" if status < 0
                       else f"exit code {status}")  # fmt: skip
                print(f"launcher: worker rank {rank} (pid {procs[rank].pid}) failed with {how}; "
                      "stopping the others", file=sys.stderr, flush=True)  # fmt: skip
                code = 1
                for other in pending:
                    procs[other].terminate()
        threading.Event().wait(0.1)
    for t in pumps:
        t.join(timeout=5)
    print(f"launcher: all workers exited, exit code {code}", flush=True)
    return code


def main(module: str, worker: Callable[[int, int], None]) -> None:
    """`python -m module` launches the group; `--worker` runs one rank."""
    if "--worker" in sys.argv:
        worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
        return
    raise SystemExit(launch(module))
