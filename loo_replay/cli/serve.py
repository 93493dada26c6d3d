"""``loo-replay serve``: the explorer over a database, served by uvicorn until Ctrl-C.

The database is checked (and an older schema upgraded) once at the start; from then on
each request attaches it read-only and detaches it (``explorer/app.py``).  The socket is
bound here, so that a port in use is one sentence; a host other than the loopback
gets a warning, for there is no login.  Ctrl-C ends it with exit status 130.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Annotated

import typer

from loo_replay.cli.database import DEFAULT_DB, DbOpt
from loo_replay.cli.options import reads_logs
from loo_replay.cli.output import fail
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host``: ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@reads_logs
def serve(
    db: DbOpt = DEFAULT_DB,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            metavar="ADDRESS",
            help="Where to listen; anything but the loopback lets other machines read the "
            "database (there is no login).",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            "--port",
            min=0,
            max=65535,
            metavar="PORT",
            help="The port (0: any free one, printed at the start).",
        ),
    ] = 8000,
    limits: Limits = LIMITS,
) -> None:
    """Explore a database in a browser: sessions, players and findings, any deal's replay.

    A local, read-only web server: each page reads the database and lets go of it, so that
    `ingest` can load more while it serves (a page asked for during a write says so and
    retries).  A replay reads the session's stored document within the same limits as
    `report` (--max-document-bytes and the rest).  Ctrl-C stops it.
    """
    import uvicorn

    from loo_replay.db.errors import DatabaseBusy, DatabaseError
    from loo_replay.db.queries import open_for_reading
    from loo_replay.db.schema import reading

    try:
        with reading(db):
            open_for_reading(db).close()  # there, loo-replay's, and upgraded if it was older
    except DatabaseBusy as exc:
        typer.echo(f"loo-replay: {exc}; its pages say so until it is free", err=True)
    except DatabaseError as exc:
        fail(str(exc))
    local = is_loopback(host)
    if not local:
        typer.echo(
            f"loo-replay: warning: listening on {safe(host)}, not the loopback: anyone who can "
            "reach this machine can read the database, and there is no login",
            err=True,
        )
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except (OSError, OverflowError) as exc:
        fail(
            f"cannot listen on {safe(host)} port {port}: {safe(getattr(exc, 'strerror', None) or str(exc))}"
        )
    from loo_replay.explorer.app import make_app  # seconds of imports: after what can fail

    bound = sock.getsockname()[1]
    # Against DNS rebinding: a page elsewhere cannot read a local server under its own name.
    hosts = ["127.0.0.1", "localhost"] if local and family == socket.AF_INET else None
    app = make_app(db, str(db), hosts, limits)
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    typer.echo(
        f"loo-replay: serving {safe(str(db))} read-only at http://{shown}:{bound}/ (Ctrl-C stops)",
        err=True,
    )
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", server_header=False
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    raise typer.Exit(130)  # it stops on a signal only
