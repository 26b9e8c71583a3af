"""What every template may call: the game's words and the app's enums, registered once.

Templates compute no rule: they get numbers from :mod:`scorekeeper.rules` through the
views, and words from :mod:`scorekeeper.wording` through these globals.
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping
from typing import Any

import jinja2
from flask import Flask
from flask.templating import Environment

from . import rules
from .gameplay import Step
from .i18n import LANGUAGES
from .models import ChangeAction, GameStatus
from .wording import formats, history, messages, winners


def init_app(app: Flask) -> None:
    """Register the template globals and filters on ``app``."""
    app.jinja_env.filters.update(
        names_list=formats.names_list,
        markup_list=formats.markup_list,
        signed=formats.signed,
        trump_symbols_hidden=messages.trump_symbols_hidden,
        one_decimal=formats.one_decimal,
        day=formats.day,
        percent=formats.percent,
    )
    app.jinja_env.globals.update(
        languages=LANGUAGES,
        Step=Step,
        BidReveal=rules.BidReveal,
        GameStatus=GameStatus,
        ChangeAction=ChangeAction,
        action_label=history.action_label,
        undo_phrase=history.undo_phrase,
        status_label=history.status_label,
        trump_label=messages.trump_label,
        trump_symbol=messages.trump_symbol,
        suit_name=messages.suit_name,
        cause_label=messages.cause_label,
        rules_summary=messages.rules_summary,
        problem_message=messages.problem_message,
        forbidden_message=messages.forbidden_bid_message,
        plan_label=messages.plan_label,
        plan_explanation=messages.plan_explanation,
        bid_rule_label=messages.bid_rule_label,
        bid_rule_explanation=messages.bid_rule_explanation,
        reveal_label=messages.reveal_label,
        reveal_explanation=messages.reveal_explanation,
        variant_label=messages.variant_label,
        variant_explanation=messages.variant_explanation,
        jubilee_label=messages.jubilee_label,
        jubilee_explanation=messages.jubilee_explanation,
        table_note_label=messages.table_note_label,
        table_note_explanation=messages.table_note_explanation,
        tie_break_label=messages.tie_break_label,
        tie_break_explanation=messages.tie_break_explanation,
        rule_mark=messages.rule_mark,
        rule_choices=messages.rule_choices,
        short_names=formats.short_names,
        list_joints=formats.list_joints,
        winner_words=winners.winner_words,
    )


def compile_templates(app: Flask) -> int:
    """Compile every page template into the environment's cache, so the server's first
    visitors do not each compile them (a cold table screen took 141 ms instead of 24, and
    the threads that asked at once all compiled it); returns how many."""
    names = app.jinja_env.list_templates(filter_func=lambda name: name.endswith(".html"))
    for name in names:
        app.jinja_env.get_template(name)
    return len(names)


class Template(jinja2.Template):
    """Jinja's template, with ``{% from "macros/…" import … %}`` found without comparing
    every global name again: Jinja checks on each import whether the importing page has a
    global the macros' module lacks (a set difference over a ChainMap of some sixty names),
    a fifteenth of a table step's time (cProfile). The names this template's module was made
    with are kept as a frozen set; a page whose globals are all in it gets the cached module,
    as Jinja would; any other takes Jinja's own path."""

    def _get_default_module(self, ctx: Any = None) -> Any:
        if ctx is not None:
            known = self.__dict__.get("_known_globals")
            if known is None:
                known = self._known_globals = frozenset(self.globals)
            if ctx.globals_keys <= known:
                ctx = None
        return super()._get_default_module(ctx)


class TemplateEnvironment(Environment):
    """Flask's template environment, making :class:`Template` objects."""

    template_class = Template

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals: the environment's own dict when it has none of its own.

        Jinja gives every template a ChainMap of its globals over the environment's, and
        each render, include and macro import copies it into a new context; a ChainMap is
        copied name by name in Python (about sixty names here: it was a twentieth of a
        table step, cProfile and py-spy). The app sets its globals while it starts and gives
        no template globals of its own, so such a template reads the environment's dict
        itself: a global changed later is still seen, as through the ChainMap. A template
        given globals of its own gets Jinja's ChainMap."""
        if not d:
            return self.globals
        return super().make_globals(d)

    def _load_template(self, name: str, globals: MutableMapping[str, Any] | None) -> Any:
        """Jinja's, except that a cached template reading the environment's dict itself gets
        a ChainMap of its own before Jinja adds the globals it is loaded again with
        (``get_template(name, globals=...)`` updates the cached template's globals in place,
        which would otherwise put them in every template's)."""
        if globals and self.loader is not None and self.cache is not None:
            cached = self.cache.get((weakref.ref(self.loader), name))
            if cached is not None and cached.globals is self.globals:
                cached.globals = super().make_globals(None)
        return super()._load_template(name, globals)
