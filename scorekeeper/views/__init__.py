"""One blueprint per area of the app; ``register`` binds them all."""

from flask import Flask

from .. import templating
from . import (
    access,
    events,
    history,
    ladder,
    live,
    main,
    paper,
    play,
    players,
    rendering,
    seat,
    setup,
)


def register(app: Flask) -> None:
    """Bind every blueprint, the password check and the template globals to ``app``."""
    templating.init_app(app)
    rendering.init_app(app)
    access.init_app(app)
    app.register_blueprint(main.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(setup.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(ladder.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(seat.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(paper.bp)
