"""``loo-replay serve``: the explorer over a database, served until Ctrl-C.

The database is checked (and an older schema upgraded) once at the start; the socket is
bound (``explorer/server.py``) before the app's imports, so that a port in use is one
sentence; a host other than the loopback gets a warning, for there is no login.  Ctrl-C
ends it with exit status 130.
"""

from __future__ import annotations

import threading
from typing import Annotated

import typer

from loo_replay.cli.database import DEFAULT_DB, DbOpt
from loo_replay.cli.options import reads_logs
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.output.text import safe


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
    from loo_replay.db.errors import DatabaseBusy
    from loo_replay.db.opening import ready
    from loo_replay.explorer import server
    from loo_replay.explorer.origin import Origin, is_loopback

    try:
        ready(db)  # there, loo-replay's, and upgraded if it was older
    except DatabaseBusy as exc:  # not a failure: it serves, each page saying so
        typer.echo(f"loo-replay: {exc}; its pages say so until it is free", err=True)
    if not is_loopback(host):
        typer.echo(
            f"loo-replay: warning: listening on {safe(host)}, not the loopback: anyone who can "
            "reach this machine can read the database, and there is no login",
            err=True,
        )
    sock = server.listen(host, port)
    from loo_replay.explorer.app import make_app  # seconds of imports: after what can fail

    stopping = threading.Event()  # set on Ctrl-C: the requests waiting are answered at once
    app = make_app(db, str(db), Origin(host, sock.getsockname()[0]), limits, stopping)
    typer.echo(
        f"loo-replay: serving {safe(str(db))} read-only at {server.url(host, sock)} (Ctrl-C stops)",
        err=True,
    )
    try:
        server.run(app, sock, stopping)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    raise typer.Exit(130)  # it stops on a signal only
