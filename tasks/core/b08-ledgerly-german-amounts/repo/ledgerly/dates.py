"""Statement dates to ISO dates."""


def parse_day(text, locale):
    parts = text.strip().split(locale.date_sep)
    if len(parts) != 3:
        raise ValueError(f"not a date in locale {locale.code}: {text!r}")
    if locale.date_order == "MDY":
        month, day, year = parts
    else:
        day, month, year = parts
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
