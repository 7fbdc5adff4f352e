"""The one exception a user sees: its message is the single line the CLI prints."""


class CompanionError(Exception):
    """A bad input or a state the user must fix; the CLI prints it as one line and exits non-zero."""
