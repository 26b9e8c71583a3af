"""The app's select widget writes what WTForms' own writes, option for option."""

from wtforms import Form, widgets
from wtforms.fields.choices import SelectChoice

from scorekeeper.forms.base import SelectField

CHOICES = [
    SelectChoice("", "Any player"),
    SelectChoice("1", 'Ann <the "best"> & co'),
    SelectChoice(2, "Bob"),
    SelectChoice(True, "yes"),
    SelectChoice('x"><script>', "<b>odd</b>"),
    SelectChoice("3", ""),
]


class Filters(Form):
    player = SelectField("Player", choices=CHOICES, default="1")
    grouped = SelectField(
        "Grouped",
        choices=[SelectChoice("a", "Á", optgroup="A"), SelectChoice("b", "<B>", optgroup="B")],
    )
    marked = SelectField(
        "Marked", choices=[SelectChoice("m", "M", render_kw={"disabled": True}), SelectChoice("n")]
    )


def test_every_select_is_written_as_wtforms_writes_it():
    for data in ({}, {"player": 'x"><script>'}, {"player": "2", "grouped": "b"}):
        form = Filters(data=data)
        for field in (form.player, form.grouped, form.marked):
            for kwargs in ({}, {"class_": "input", "autofocus": True, "aria_invalid": "true"}):
                ours = str(field(**kwargs))
                theirs = str(widgets.Select()(field, **kwargs))
                assert ours == theirs
                assert "<script>" not in ours
