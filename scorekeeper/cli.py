"""Command-line tools for the host: ``flask --app scorekeeper serve``, ``announce`` …"""

import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import segno
import sqlalchemy as sa
from flask import Flask, current_app

from . import exchange, models, ratings, results
from .exchange import move
from .extensions import db, migrate
from .models import Game, GameStatus, database_url
from .views.live import remember_announced

# `flask serve --threads`, as the environment hands it to each server process.
THREADS_VARIABLE = "SCOREKEEPER_SERVER_THREADS"
# The access log's line; the tokens of live and seat links in it are masked (MaskTokens).
ACCESS_LOG_FORMAT = (
    '%(addr)s - [%(time)s] "%(method)s %(path)s %(protocol)s" %(status)d %(dt_ms).1fms'
)
LOG_CONFIG = Path(__file__).with_name("server-logging.json")
# A request's head (its line and headers) must arrive within this: a slow one is dropped.
HEADER_SECONDS = 10
# How long a stop (Ctrl-C, SIGTERM) waits for each worker to finish its requests before it is
# ended: as gunicorn's graceful timeout. Granian's own default waits for ever, and a worker
# still starting when the stop comes (importing the app) misses it: the server never stopped.
STOP_SECONDS = 30


def lan_address() -> str:
    """The address other devices on the network reach this machine at (loopback if none)."""
    # Connecting a UDP socket sends nothing; it only asks the kernel which interface it would use.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


# PostgreSQL advisory lock key: the hosts of a club started at once migrate one at a time.
MIGRATION_LOCK = 0x5C0E_4EE9


@contextmanager
def migration_lock() -> Iterator[None]:
    """On PostgreSQL, hold a lock shared by every host for the migration: the second host
    waits, then finds the schema current (alembic itself does not lock)."""
    if db.engine.dialect.name != "postgresql":
        yield
        return
    with db.engine.connect() as connection:
        connection.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()


def database_app(url: str) -> Flask:
    """A bare app on another database, for its migrations and the move (no views)."""
    other = Flask(__name__)
    other.config["SQLALCHEMY_DATABASE_URI"] = database_url(url)
    other.config["SQLALCHEMY_ENGINE_OPTIONS"] = {"pool_pre_ping": True}
    db.init_app(other)
    directory = current_app.extensions["migrate"].directory  # the app's own migrations
    migrate.init_app(other, db, directory=directory, render_as_batch=True)
    return other


def _move(source: sa.Engine, target: sa.Engine) -> move.Comparison:
    """Refuse a target with rows, migrate it, copy the source in, compare both."""
    from flask_migrate import upgrade

    try:
        present = move.rows_present(target)
    except sa.exc.SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise click.ClickException(f"Cannot open {target.url!r}: {reason}") from None
    if present:
        tables = ", ".join(f"{name} ({count})" for name, count in sorted(present.items()))
        raise click.ClickException(
            f"The target database is not empty — {tables}: move-to only fills an empty database."
        )
    click.echo(f"Migrating {target.url!r} …")
    with migration_lock():
        upgrade()
    click.echo("Copying …")
    with source.connect() as reading, target.begin() as writing:
        reading.begin()  # one snapshot of the source for the whole copy
        move.copy(reading, writing, click.echo)
        move.reset_sequences(writing, move.ids_given(reading))
    click.echo("Comparing both databases …")
    return move.compare(source, target, click.echo)


def server_command(
    host: str, port: int, workers: int, threads: int, stop_seconds: int = STOP_SECONDS
) -> list[str]:
    """The production server's command line: the one place that says how the app is served.

    Granian, ``workers`` processes (a dead one is started again), each running the app in
    ``threads`` threads (:mod:`.serving`: the environment carries the number, see
    :func:`server_environment`). A request's head must arrive within 10 s and its body as
    :mod:`.serving` says, read before any app thread is taken; the access log masks tokens.
    On a stop a worker that has not ended after ``stop_seconds`` is killed."""
    return [
        sys.executable,
        "-m",
        "granian",
        "--interface",
        "asgi",
        "--factory",
        "--host",
        host,
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--respawn-failed-workers",
        "--respawn-interval",
        "1",
        "--workers-kill-timeout",
        str(stop_seconds),
        "--http",
        "1",
        "--no-ws",
        "--http1-header-read-timeout",
        str(HEADER_SECONDS * 1000),
        "--log-config",
        str(LOG_CONFIG),
        "--access-log",
        "--access-log-fmt",
        ACCESS_LOG_FORMAT,
        "scorekeeper.serving:asgi_app",
    ]


def server_environment(threads: int) -> dict[str, str]:
    """The environment :func:`server_command` runs in: this one, and the threads per process."""
    return {**os.environ, THREADS_VARIABLE: str(threads)}


def init_app(app: Flask) -> None:
    @app.cli.command("announce")
    @click.option("--port", default=8000, show_default=True, help="Port the server listens on.")
    def announce(port: int) -> None:
        """Print the address to open on a phone, as text and as a QR code."""
        url = f"http://{lan_address()}:{port}/"
        # The live view's QR code uses it when the host opens the app at localhost.
        remember_announced(app.instance_path, url)
        click.echo("\nWizard Scorekeeper is starting. Open this on a phone on the same network:\n")
        segno.make(url, error="m").terminal(compact=True)
        click.echo(f"\n  {url}\n")

    @app.cli.command("serve")
    @click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
    @click.option("--port", default=8000, show_default=True, help="Port to listen on.")
    @click.option("--workers", default=2, show_default=True, help="Server processes.")
    @click.option("--threads", default=4, show_default=True, help="Threads per process.")
    @click.option(
        "--stop-seconds",
        default=STOP_SECONDS,
        show_default=True,
        type=click.IntRange(1, 1800),
        help="On a stop, how long a worker may finish its requests before it is ended.",
    )
    @click.pass_context
    def serve(
        context: click.Context, host: str, port: int, workers: int, threads: int, stop_seconds: int
    ) -> None:
        """Migrate the database, print the phone address, then serve the app (what `make run`
        does; the tests that play on the real server start exactly this)."""
        from flask_migrate import upgrade

        with migration_lock():
            upgrade()
        # Results missing from a database written before they were stored with each change
        # (none on a fresh one: one query): stored here, never by a page.
        results.refresh()
        models.analyze(db.engine)
        db.engine.dispose()
        context.invoke(announce, port=port)
        command = server_command(host, port, workers, threads, stop_seconds)
        sys.stdout.flush()
        os.execve(command[0], command, server_environment(threads))

    @app.cli.command("export")
    @click.option(
        "--output",
        "-o",
        type=click.Path(dir_okay=False, writable=True),
        help="File to write (default: standard output).",
    )
    def export_backup(output: str | None) -> None:
        """Write a full backup (every player and game) as JSON."""
        # Written as it is read from the database, a few games at a time.
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.writelines(exchange.backup_chunks())
            click.echo(f"Backup written to {output}", err=True)
        else:
            for chunk in exchange.backup_chunks():
                click.echo(chunk, nl=False)

    @app.cli.command("refresh")
    def refresh() -> None:
        """Store the results of games that lack them (a database from before they were
        stored with each change) and bring the all-time ladder up to date, through the same
        single-flighted job as the pages, with progress."""
        stale = db.session.scalar(
            sa.select(sa.func.count()).select_from(
                results.stale_games(sa.select(Game.id)).subquery()
            )
        )
        with click.progressbar(length=stale or 0, label="Game results", file=sys.stderr) as bar:
            computed = results.refresh(progress=bar.update)
        models.analyze(db.engine)
        finished = db.session.scalar(
            sa.select(sa.func.count()).where(Game.status == GameStatus.FINISHED)
        )
        db.session.remove()
        with click.progressbar(length=finished or 0, label="Ladder", file=sys.stderr) as bar:
            ran = ratings.run_job(ratings.ALL_TIME, None, progress=bar.update)
        ladder = "is current" if ran else "is being brought up to date by another process"
        click.echo(f"{computed} games' results computed; the all-time ladder {ladder}.")

    @app.cli.command("import")
    @click.argument("path", type=click.Path(exists=True, dir_okay=False))
    def import_backup(path: str) -> None:
        """Restore a backup or game export; a file with any problem changes nothing."""
        # Read one game at a time, twice: to check it all, then to write it.
        with open(path, "rb") as handle:
            try:
                result = exchange.import_file(handle)
            except exchange.ImportProblem as problem:
                for line in problem.problems:
                    click.echo(f"error: {line}", err=True)
                raise SystemExit(1) from None
        click.echo(
            f"{result.games_added} games and {result.players_added} players added; "
            f"{result.games_skipped} games were already here."
        )

    @app.cli.command("move-to")
    @click.argument("url")
    def move_to(url: str) -> None:
        """Move every player, game, link and sign-in to an empty database (PostgreSQL:
        postgresql+psycopg://user:pass@host/db), keeping every id; then compare both."""
        from flask_migrate import upgrade

        started = time.monotonic()
        source = db.engine
        if database_url(url) == str(source.url.render_as_string(hide_password=False)):
            raise click.ClickException("That is the database this instance already uses.")
        with migration_lock():
            upgrade()  # the source as this version of the app reads it
        if unknown := move.unknown_tables(source):
            raise click.ClickException(
                f"This database has tables this version does not know: {', '.join(unknown)}."
            )
        target_app = database_app(url)
        with target_app.app_context():
            try:
                comparison = _move(source, db.engine)
            finally:
                db.engine.dispose()
        for line in comparison.differences:
            click.echo(f"error: {line}", err=True)
        if comparison.differences:
            raise SystemExit(1)
        rows = sum(before for before, _after in comparison.counts.values())
        click.echo(
            f"Moved in {time.monotonic() - started:.1f} s: {rows:,} rows in "
            f"{len(comparison.counts)} tables, the same counts on both sides; "
            f"{comparison.games:,} games with the same totals on both sides."
        )
        click.echo(
            "Now stop the app, set SCOREKEEPER_DATABASE_URL to the new database and start it."
        )
