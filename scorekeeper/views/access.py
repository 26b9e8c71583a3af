"""An optional password for the whole instance, set by the host (``ACCESS_PASSWORD``).

Everything asks for it except the health check, static files, the read-only live view and
the players' own seat links, so the other phones at the table can follow a game (and bid
for their own seat) without it.
"""

import hmac

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    redirect,
    request,
    session,
    url_for,
)
from flask_htmx import make_response as htmx_response

from .. import signins
from ..extensions import htmx, limiter, limiter_wait
from ..forms.access import LoginForm
from ..forms.base import Form
from ..i18n import gettext as _
from ..i18n import ngettext
from .rendering import render, safe_path

bp = Blueprint("access", __name__)

OPEN_ENDPOINTS = frozenset(
    {
        "static",
        "main.healthz",
        "main.language",
        "main.manifest",
        "main.offline",
        "main.service_worker",
        "live.page",
        "live.board",
        # An event's read-only board, for the projector and everyone's phone.
        "events.board",
        "events.board_part",
        # A player's own phone: the seat link's token is the key (it bids for that seat only).
        "seat.page",
        "seat.pad",
        "seat.bid",
        "access.login",
        "access.logout",
    }
)


# The one upload larger than a form: a backup to restore (MAX_CONTENT_LENGTH), for a visitor
# past the password check. Every other body is a form of a few KB (FORM_MAX_CONTENT_LENGTH).
LARGE_BODY_ENDPOINTS = frozenset({"history.restore"})


def _pass_mark() -> str:
    """The current password's fingerprint: a sign-in made under another one no longer holds."""
    return signins.pass_mark(
        current_app.config["ACCESS_PASSWORD"], current_app.config["SECRET_KEY"]
    )


def require_password() -> Response | None:
    if not current_app.config.get("ACCESS_PASSWORD") or request.endpoint in OPEN_ENDPOINTS:
        return None
    if signins.is_signed_in(session.get("access"), _pass_mark()):
        return None
    # Under the path prefix too (a proxy's X-Forwarded-Prefix): the address to go back to.
    target = url_for("access.login", next=request.script_root + request.full_path.rstrip("?"))
    if htmx:
        return htmx_response(redirect=target)
    return redirect(target, 303)


def guard() -> Response | None:
    """Before anything reads the body (the CSRF check reads the form): the password, then the
    body's limit for this route, so that a visitor without the password can send no more than
    a small form, and a body over the limit is refused (413) before it is parsed."""
    if (refused := require_password()) is not None:
        return refused
    config = current_app.config
    served = request._get_current_object()  # type: ignore[attr-defined]  # once, not per use
    large = served.endpoint in LARGE_BODY_ENDPOINTS
    limit = int(config["MAX_CONTENT_LENGTH" if large else "FORM_MAX_CONTENT_LENGTH"])
    # Flask's per-request limit: Werkzeug reads at most this much of the body (one without
    # a length included). The form parser's own limits are the app's MAX_FORM_MEMORY_SIZE
    # and MAX_FORM_PARTS (config.py); the first must stay above the parser's 64 KB read
    # size, which Werkzeug also applies to a file part's buffer (a club's backup was refused
    # as "too large" when a read ended on a line break while it was this 64 KB limit).
    served.max_content_length = limit
    # No Content-Length, no length to compare (and no lookup of it through the headers).
    if served.environ.get("CONTENT_LENGTH") and (served.content_length or 0) > limit:
        abort(413)
    return None


def _failed_guess(response: Response) -> bool:
    return response.status_code == 422


@bp.route("/login", methods=["GET", "POST"])
@limiter.limit(
    lambda: current_app.config["LOGIN_RATE_LIMIT"], methods=["POST"], deduct_when=_failed_guess
)
def login() -> Response:
    form = LoginForm(next=request.args.get("next"))
    if not current_app.config.get("ACCESS_PASSWORD"):
        return redirect(url_for("main.home"))
    if form.validate_on_submit():
        given = form.password.data.encode()
        if hmac.compare_digest(given, current_app.config["ACCESS_PASSWORD"].encode()):
            session["access"] = signins.sign_in(_pass_mark())
            session.permanent = True
            return redirect(safe_path(form.next.data), 303)
        form.password.errors.append(_("That is not the password."))
    status = 422 if form.is_submitted() else 200
    return render("access/login.html", None, status, form=form)


@bp.post("/logout")
def logout() -> Response:
    form = Form()
    if form.validate_on_submit():
        signins.sign_out(session.pop("access", None))
    return redirect(url_for("access.login"), 303)


@bp.errorhandler(429)
def too_many_guesses(error: Exception) -> Response:
    """Wrong passwords from one address come back slower: the login form says when to retry."""
    wait = limiter_wait()
    form = LoginForm(formdata=None, next=request.form.get("next"))
    form.password.errors = [
        ngettext(
            "Too many wrong passwords: try again in %(num)d second.",
            "Too many wrong passwords: try again in %(num)d seconds.",
            wait,
        )
    ]
    response = render("access/login.html", None, 429, form=form)
    response.headers["Retry-After"] = str(wait)
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


def guard_bodies(app: Flask) -> None:
    """Register :func:`guard`; called before the CSRF check is (its hook reads the form)."""
    app.before_request(guard)
