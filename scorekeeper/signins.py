"""Phones signed in with the instance password, kept on the server so they can be revoked.

The session cookie holds only a random token; the token is valid while its row exists and
was made with the current password. Signing out deletes the row (a copy of the cookie stops
working); a new password makes every earlier sign-in invalid.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import sqlalchemy as sa

from .changes import begin_write
from .extensions import db
from .models import AccessSession


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
