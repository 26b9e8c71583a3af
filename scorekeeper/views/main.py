"""The home page and the health check."""

import sqlalchemy as sa
from flask import Blueprint, Response, render_template

from ..extensions import db

bp = Blueprint("main", __name__)


@bp.get("/")
def home() -> str:
    return render_template("main/home.html")


@bp.get("/healthz")
def healthz() -> Response:
    # Touches the database so a proxy's health probe notices a lost connection.
    db.session.execute(sa.text("SELECT 1"))
    return Response("ok\n", mimetype="text/plain", headers={"Cache-Control": "no-store"})
