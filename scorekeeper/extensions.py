"""Flask extensions, created unbound and bound to an app in ``create_app``."""

import time

from flask_babel import Babel
from flask_htmx import HTMX
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

# Named constraints keep migrations portable between SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
csrf = CSRFProtect()
htmx = HTMX()
babel = Babel()
# Password guesses per client address (in memory by default; RATELIMIT_STORAGE_URI, e.g. a
# redis:// URL, shares the count between several hosts). Nothing else is limited.
limiter = Limiter(key_func=get_remote_address, default_limits=[])


def limiter_wait() -> int:
    """Seconds until the limit that was just hit lets a request through again (at least 1)."""
    hit = limiter.current_limit
    if hit is None:
        return 60
    return max(1, int(hit.reset_at - time.time()))
