"""Signing in with the instance's access password."""

from wtforms import HiddenField, PasswordField
from wtforms.validators import InputRequired

from ..i18n import lazy_gettext as _l
from .base import Form


class LoginForm(Form):
    password = PasswordField(_l("Password"), validators=[InputRequired(_l("Type the password."))])
    next = HiddenField()
