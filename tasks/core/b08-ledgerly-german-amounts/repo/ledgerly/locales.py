"""Number and date conventions of the banks we import from."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Locale:
    code: str
    decimal: str
    thousands: str
    date_order: str  # the order of day, month, year in dates: "MDY" or "DMY"
    date_sep: str
    delimiter: str  # CSV delimiter


LOCALES = {
    "en": Locale("en", decimal=".", thousands=",", date_order="MDY", date_sep="/", delimiter=","),
    "de": Locale("de", decimal=",", thousands=".", date_order="DMY", date_sep=".", delimiter=";"),
    "fr": Locale("fr", decimal=",", thousands=" ", date_order="DMY", date_sep="/", delimiter=";"),
}


def get_locale(code):
    try:
        return LOCALES[code]
    except KeyError:
        raise ValueError(f"unknown locale {code!r} (known: {', '.join(LOCALES)})") from None
