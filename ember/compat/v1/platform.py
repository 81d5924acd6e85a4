"""TensorFlow 1's program scaffolding: ``tf.app.run``, ``tf.app.flags`` and ``tf.logging``.

TF1 tutorials start with ``FLAGS = tf.app.flags.FLAGS`` and ``tf.app.flags.DEFINE_integer(...)``
and end with ``tf.app.run()``. The flags are parsed from ``sys.argv``: strictly by ``run`` (an
unknown flag is an error), and leniently on the first read of a flag before that (so
``FLAGS.batch_size`` works in a program that never calls ``run``), as TensorFlow's wrapper does.

>>> flags = FlagValues()
>>> _ = flags.DEFINE_integer("steps", 10, "how many steps")
>>> flags(["prog", "--steps=3", "rest"])
['prog', 'rest']
>>> flags.steps
3
"""

from __future__ import annotations

import logging as _logging
import sys
import types

__all__ = ["FLAGS", "FlagValues", "app", "flags", "logging"]


class Error(Exception):
    """A flag defined twice, a value that does not parse, an unknown flag."""


class _Flag:
    __slots__ = ("default", "help", "kind", "name", "parse", "value")

    def __init__(self, name: str, default, help_text: str, kind: str, parse) -> None:
        self.name, self.default, self.help, self.kind, self.parse = name, default, help_text, kind, parse
        self.value = default


def _parse_bool(text: str) -> bool:
    low = text.lower()
    if low in ("true", "t", "1", "yes", "y"):
        return True
    if low in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError(f"{text!r} is not a boolean")


def _parse_list(text: str) -> list:
    return [part.strip() for part in text.split(",") if part.strip()]


class FlagValues:
    """The registry of defined flags and their parsed values (``tf.app.flags.FLAGS``)."""

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)

    # -- defining ---------------------------------------------------------------------------

    def _define(self, name: str, default, help_text: str, kind: str, parse):
        if not isinstance(name, str) or not name:
            raise Error(f"DEFINE_{kind}(): the flag name must be a non-empty str, got {name!r}")
        if name in self._flags:
            raise Error(f"The flag '{name}' is defined twice.")
        if isinstance(default, str) and kind not in ("string", "enum"):
            default = parse(default)
        self._flags[name] = _Flag(name, default, help_text, kind, parse)
        return self._flags[name]

    def DEFINE_string(self, name, default, help, **kwargs):  # noqa: A002 - TensorFlow's names
        return self._define(name, default, help, "string", str)

    def DEFINE_integer(self, name, default, help, lower_bound=None, upper_bound=None, **kwargs):  # noqa: A002
        def parse(text):
            value = int(text)
            if (lower_bound is not None and value < lower_bound) or (upper_bound is not None and value > upper_bound):
                raise ValueError(f"{value} is outside [{lower_bound}, {upper_bound}]")
            return value

        return self._define(name, default, help, "integer", parse)

    def DEFINE_float(self, name, default, help, **kwargs):  # noqa: A002
        return self._define(name, default, help, "float", float)

    def DEFINE_boolean(self, name, default, help, **kwargs):  # noqa: A002
        return self._define(name, default, help, "boolean", _parse_bool)

    DEFINE_bool = DEFINE_boolean

    def DEFINE_list(self, name, default, help, **kwargs):  # noqa: A002
        return self._define(name, default, help, "list", _parse_list)

    def DEFINE_enum(self, name, default, enum_values, help, **kwargs):  # noqa: A002
        allowed = list(enum_values)

        def parse(text):
            if text not in allowed:
                raise ValueError(f"value should be one of <{'|'.join(allowed)}>")
            return text

        return self._define(name, default, help, "enum", parse)

    # -- parsing -----------------------------------------------------------------------------

    def __call__(self, argv, known_only: bool = False) -> list:
        """Parse ``--name=value``, ``--name value``, ``--flag``/``--noflag`` out of ``argv``;
        returns the arguments left (the program name first). Unknown flags are an error unless
        ``known_only``, when they are left in place."""
        argv = list(argv)
        rest, i = argv[:1], 1
        while i < len(argv):
            arg = argv[i]
            i += 1
            if arg == "--":
                rest.extend(argv[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            name, eq, text = arg.lstrip("-").partition("=")
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and not eq and getattr(self._flags.get(name[2:]), "kind", "") == "boolean":
                self._flags[name[2:]].value = False
                continue
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise Error(f"Unknown command line flag '{name}'")
            if not eq:
                if flag.kind == "boolean":
                    flag.value = True
                    continue
                if i >= len(argv):
                    raise Error(f"Flag --{name} must have a value other than None.")
                text = argv[i]
                i += 1
            try:
                flag.value = flag.parse(text)
            except ValueError as error:
                raise Error(f"flag --{name}={text}: {error}") from None
        object.__setattr__(self, "_parsed", True)
        return rest

    def is_parsed(self) -> bool:
        return self._parsed

    def __getattr__(self, name: str):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            self(sys.argv, known_only=True)
        return flags[name].value

    def __setattr__(self, name: str, value) -> None:
        if name not in self._flags:
            raise AttributeError(f"Unknown flag {name!r}: define it first")
        self._flags[name].value = value

    def __contains__(self, name: str) -> bool:
        return name in self._flags

    def flag_values_dict(self) -> dict:
        return {name: flag.value for name, flag in self._flags.items()}


FLAGS = FlagValues()

flags = types.ModuleType("flags", "``tf.app.flags`` / ``tf.flags``: flag definitions over ``FLAGS``.")
flags.FLAGS = FLAGS
flags.FlagValues = FlagValues
flags.Error = Error
for _name in ("DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean", "DEFINE_bool", "DEFINE_list", "DEFINE_enum"):
    setattr(flags, _name, getattr(FLAGS, _name))


def run(main=None, argv=None):
    """Parse the flags out of ``argv`` (default ``sys.argv``), call ``main(remaining argv)``
    (default: the caller module's ``main``), and exit with what it returns."""
    rest = FLAGS(sys.argv if argv is None else argv)
    if main is None:
        main = sys.modules["__main__"].main
    sys.exit(main(rest))


app = types.ModuleType("app", "``tf.app``: ``run`` and ``flags``.")
app.run = run
app.flags = flags


# -- tf.logging: Python's logging under TensorFlow's names ------------------------------------

_LOGGER = _logging.getLogger("ember.compat.v1")

logging = types.ModuleType("logging", "``tf.logging``: Python's logging under TensorFlow 1's names.")
logging.DEBUG, logging.INFO, logging.WARN, logging.ERROR, logging.FATAL = 10, 20, 30, 40, 50
logging.set_verbosity = _LOGGER.setLevel
logging.get_verbosity = _LOGGER.getEffectiveLevel
logging.debug, logging.info, logging.warning, logging.error = _LOGGER.debug, _LOGGER.info, _LOGGER.warning, _LOGGER.error
logging.warn = _LOGGER.warning
logging.log = _LOGGER.log


def _fatal(msg, *args, **kwargs):
    _LOGGER.critical(msg, *args, **kwargs)
    sys.exit(1)


logging.fatal = _fatal


class _StderrHandler(_logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (it may be redirected later)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


if not _LOGGER.handlers:  # TensorFlow's logger prints "LEVEL:name:message" to stderr by default
    _handler = _StderrHandler()
    _handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
    _LOGGER.addHandler(_handler)
    _LOGGER.propagate = False
    _LOGGER.setLevel(_logging.WARNING)
