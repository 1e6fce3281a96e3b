"""Amounts as banks write them: '1,234.56', '-1.234,56', '1 234,56 €'."""

_CURRENCY = "€$£ "


def normalise(text, locale):
    """The amount text in Python's float syntax for a locale."""
    cleaned = text.strip().strip(_CURRENCY).strip()
    cleaned = cleaned.replace(locale.decimal, ".")
    cleaned = cleaned.replace(locale.thousands, "")
    return cleaned


def parse_amount(text, locale):
    normalised = normalise(text, locale)
    try:
        return round(float(normalised), 2)
    except ValueError:
        raise ValueError(f"not an amount in locale {locale.code}: {text!r}") from None
