"""Phones signed in with the instance password, kept on the server so they can be revoked.

The session cookie holds only a random token; the token is valid while its row exists and
was made with the current password. Signing out deletes the row (a copy of the cookie stops
working); a new password makes every earlier sign-in invalid.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

import sqlalchemy as sa
from limits.storage import Storage
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .changes import begin_write
from .extensions import db
from .models import AccessSession, LoginGuesses


def pass_mark(password: str, secret_key: str) -> str:
    """A fingerprint of the instance password (never the password itself)."""
    return hmac.new(secret_key.encode(), password.encode(), hashlib.sha256).hexdigest()


def sign_in(mark: str) -> str:
    """Record a new signed-in phone; its token goes into the session cookie."""
    token = secrets.token_urlsafe(32)
    begin_write()
    db.session.add(AccessSession(token=token, pass_mark=mark))
    db.session.commit()
    return token


def is_signed_in(token: object, mark: str) -> bool:
    """Whether ``token`` is a sign-in that still stands under the current password."""
    if not isinstance(token, str) or not token or len(token) > 64:
        return False
    stored = db.session.scalar(
        sa.select(AccessSession.pass_mark).where(AccessSession.token == token)
    )
    return stored is not None and hmac.compare_digest(stored, mark)


def sign_out(token: object) -> None:
    """Revoke one sign-in (and forget sign-ins made with an older password)."""
    if isinstance(token, str) and token:
        begin_write()
        db.session.execute(sa.delete(AccessSession).where(AccessSession.token == token))
        db.session.commit()


class DatabaseStorage(Storage):
    """``RATELIMIT_STORAGE_URI=database://``, the default: the login limit's counts in the
    app's own database (table ``login_guesses``), so "10 per minute" holds across every
    worker of a host and every host of a club without another server. ``memory://`` counts
    per process; ``redis://`` shares them through redis.

    A limits storage (registered by its scheme when this module is imported) for the fixed
    window strategy: only wrong passwords write, one short statement each, in a transaction
    of their own beside the request's."""

    STORAGE_SCHEME = ["database"]  # noqa: RUF012 — limits reads the class attribute

    @property
    def base_exceptions(self) -> type[Exception]:
        return sa.exc.SQLAlchemyError

    @staticmethod
    def _connection() -> sa.Connection:
        # READ COMMITTED on PostgreSQL: two guesses at once wait for each other's row instead
        # of one failing under the app's REPEATABLE READ (as the data version does).
        engine = db.engine
        if engine.dialect.name == "postgresql":
            return engine.connect().execution_options(isolation_level="READ COMMITTED")
        return engine.connect()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        table = LoginGuesses.__table__
        insert = postgresql_insert if db.engine.dialect.name == "postgresql" else sqlite_insert
        expired = table.c.expires_at <= now
        statement = (
            insert(table)
            .values(key=key, count=amount, expires_at=now + expiry)
            .on_conflict_do_update(
                index_elements=[table.c.key],
                set_={
                    "count": sa.case((expired, amount), else_=table.c.count + amount),
                    "expires_at": sa.case((expired, now + expiry), else_=table.c.expires_at),
                },
            )
            .returning(table.c.count)
        )
        with self._connection() as connection, connection.begin():
            count = int(connection.execute(statement).scalar_one())
            # Other addresses' windows that ended long ago: the table stays a few rows.
            connection.execute(sa.delete(table).where(table.c.expires_at < now - 3600))
        return count

    def get(self, key: str) -> int:
        with self._connection() as connection:
            count = connection.scalar(
                sa.select(LoginGuesses.count).where(
                    LoginGuesses.key == key, LoginGuesses.expires_at > time.time()
                )
            )
        return int(count or 0)

    def get_expiry(self, key: str) -> float:
        with self._connection() as connection:
            expires = connection.scalar(
                sa.select(LoginGuesses.expires_at).where(LoginGuesses.key == key)
            )
        return float(expires) if expires is not None else time.time()

    def check(self) -> bool:
        try:
            with self._connection() as connection:
                connection.execute(sa.select(1))
        except sa.exc.SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        with self._connection() as connection, connection.begin():
            return connection.execute(sa.delete(LoginGuesses)).rowcount

    def clear(self, key: str) -> None:
        with self._connection() as connection, connection.begin():
            connection.execute(sa.delete(LoginGuesses).where(LoginGuesses.key == key))
