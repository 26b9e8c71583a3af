"""One blueprint per area of the app; ``register`` binds them all."""

from flask import Flask

from . import main


def register(app: Flask) -> None:
    app.register_blueprint(main.bp)
