"""The one exception a user sees: its message is the single line the CLI prints."""


class CompanionError(Exception):
    """A bad input or a state the user must fix; the CLI prints it as one line and exits non-zero."""


class ConfigError(CompanionError):
    """The configuration file is wrong. Exits 78 (sysexits' EX_CONFIG), not 2, so that systemd's
    ``RestartPreventExitStatus=78`` stops a service that would only fail the same way again: a
    mistyped key must not restart every two seconds for ever, while a camera that stops giving
    frames (exit 2) is still restarted."""


CONFIG_EXIT = 78


MESSAGE_CHARS = 200  # of a foreign text (a bad line, another library's error) in a one-line message


def one_line(text: object, limit: int = MESSAGE_CHARS) -> str:
    """``text`` fit for one line of a message: every character that is not printable (a newline,
    a NUL, an escape sequence) shown escaped, and cut at ``limit`` characters (a 100 MB bad line
    is not echoed whole). Cut before it is escaped, so a huge text costs no more than a short one."""
    s = str(text) if not isinstance(text, str) else text
    cut = len(s) > limit
    s = s[:limit]
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)
    return s + "..." if cut else s
