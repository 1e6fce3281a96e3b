"""A setting: one config key, declared once in its package's section with its default and its
help, from which the YAML key, the command-line flag and the flag's help are all made.

A section is a frozen dataclass whose fields are made with `setting()` (the engine's context
and llama.cpp settings, sampling, speculative decoding, the endpoint, the agent's limits, the
sandbox's, the meter's, retrieval's). RunConfig is every section at once; a command adds the
flags of the sections it takes with cli/common.py's `add_flags`. Imports nothing of
edgeagent, so any package can declare its section.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

_KEY = "edgeagent.setting"


@dataclass(frozen=True)
class Setting:
    """How a config key reads on the command line (the default is the field's own)."""

    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    parse: Callable[[str], Any] | None = None  # the flag's argparse type; default: by annotation
    minimum: float | None = None  # the smallest value the config accepts
    # the default as help states it, where the value alone would mislead (a None default)
    default_text: str | None = None
    flag: str | None = None  # where the flag is not --KEY (a boolean that defaults true: --no-KEY)
    cli: bool = True  # False: a config-file key only, or a flag a command spells by hand


def setting(default: Any, help: str, **options: Any) -> Any:
    """A section's field: its default and how its flag reads (Setting's options)."""
    return dataclasses.field(default=default, metadata={_KEY: Setting(help, **options)})


def settings_of(section: type | Any) -> dict[str, tuple[dataclasses.Field, Setting]]:
    """The config keys a section (or a config made of sections) declares, in order."""
    return {f.name: (f, f.metadata[_KEY]) for f in dataclasses.fields(section)
            if _KEY in f.metadata}


def keys_of(section: type | Any) -> tuple[str, ...]:
    return tuple(settings_of(section))


def values_of(section: type, source: Any) -> dict[str, Any]:
    """The values `source` (a config) holds for the keys of `section`."""
    return {key: getattr(source, key) for key in settings_of(section)}


def value_kind(field: dataclasses.Field) -> str:
    """bool, tuple, int, float or str, read from the field's annotation (a string under
    `from __future__ import annotations`)."""
    hint = str(field.type)
    for kind in ("bool", "tuple", "float", "int"):
        if kind in hint:
            return kind
    return "str"


def stated_default(field: dataclasses.Field, setting_: Setting) -> str | None:
    """The default as the flag's help states it; None for an on/off switch, whose flag says
    what it changes."""
    if setting_.default_text is not None:
        return setting_.default_text
    value = field.default
    if isinstance(value, bool):
        return ("1" if value else "0") if setting_.parse else None
    if value is None:
        raise ValueError(f"setting {field.name!r}: a None default needs default_text")
    return str(value)


def flag_help(field: dataclasses.Field, setting_: Setting, default: str | None = None) -> str:
    """The flag's help: the setting's words and its default (`default` where a command's own
    default differs from the section's)."""
    said = default if default is not None else stated_default(field, setting_)
    text = setting_.help + (f" (default {said})" if said is not None else "")
    return text.replace("%", "%%")  # argparse formats help with %


def reference_markdown(sections: Iterable[type]) -> str:
    """One table per section: key, flag, default and help, as the flags say them (the
    config reference docs/config.md is this text; a test keeps it current)."""
    lines: list[str] = []
    for section in sections:
        doc = (section.__doc__ or "").strip().split("\n\n")[0]
        lines += [f"## {section.__name__} ({section.__module__})", "",
                  " ".join(doc.split()), "",
                  "| key | flag | default | what it sets |", "|---|---|---|---|"]
        for key, (field, setting_) in settings_of(section).items():
            if key not in inspect.get_annotations(section):
                continue  # inherited: its own section's table has it
            flag = flag_name(field, setting_) if setting_.cli else "(config file)"
            said = stated_default(field, setting_)
            default = said if said is not None else str(field.default).lower()
            lines.append(f"| `{key}` | `{flag}` | {default} | "
                         f"{setting_.help.replace('|', '/')} |")
        lines.append("")
    return "\n".join(lines)


def flag_name(field: dataclasses.Field, setting_: Setting) -> str:
    if setting_.flag:
        return setting_.flag
    dashed = field.name.replace("_", "-")
    if value_kind(field) == "bool" and setting_.parse is None and field.default is True:
        return "--no-" + dashed
    return "--" + dashed


ON_OFF_WORDS = {"1": True, "on": True, "true": True, "yes": True,
                "0": False, "off": False, "false": False, "no": False}


def on_off(text: str) -> bool:
    """A switch's flag value: 1/0, on/off, true/false, yes/no (llama-bench writes -fa 1)."""
    value = ON_OFF_WORDS.get(text.strip().lower())
    if value is None:
        raise ValueError(f"expected 1 or 0 (on/off), got {text!r}")
    return value
