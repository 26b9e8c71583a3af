"""Configuration: defaults, ``instance/config.py``, then environment variables."""

import os
import secrets
from pathlib import Path

from flask import Flask

SECRET_KEY_FILE = "secret_key"
DATABASE_FILE = "scorekeeper.sqlite"


def load_secret_key(instance_path: str) -> str:
    """Return the instance's secret key, generating it on first start (mode 0600)."""
    path = Path(instance_path) / SECRET_KEY_FILE
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    # O_EXCL: when two workers start at once, exactly one writes and both read its key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def database_url(url: str) -> str:
    """Accept the common ``postgres://`` spellings and use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def configure(app: Flask, overrides: dict | None) -> None:
    """Fill ``app.config`` from defaults, the instance file, the environment and overrides."""
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI="sqlite:///" + str(Path(app.instance_path) / DATABASE_FILE),
        SQLALCHEMY_ENGINE_OPTIONS={"pool_pre_ping": True},
        WTF_CSRF_TIME_LIMIT=None,
        BABEL_DEFAULT_LOCALE="en",
        MAX_CONTENT_LENGTH=50 * 1024 * 1024,
        ACCESS_PASSWORD=None,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if overrides is None:
        app.config.from_pyfile("config.py", silent=True)
        if url := os.environ.get("DATABASE_URL"):
            app.config["SQLALCHEMY_DATABASE_URI"] = database_url(url)
        if key := os.environ.get("SECRET_KEY"):
            app.config["SECRET_KEY"] = key
        if password := os.environ.get("ACCESS_PASSWORD"):
            app.config["ACCESS_PASSWORD"] = password
    else:
        app.config.from_mapping(overrides)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = load_secret_key(app.instance_path)
