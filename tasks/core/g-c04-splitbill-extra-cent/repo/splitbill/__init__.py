"""splitbill: share restaurant and trip bills fairly, to the cent.

Amounts are integers of cents everywhere inside the package; text is parsed and
formatted only at the edges (`splitbill.money`).
"""

from splitbill.money import format_cents, parse_amount
from splitbill.settle import settle
from splitbill.share import split_cents
from splitbill.tip import add_tip

__all__ = ["add_tip", "format_cents", "parse_amount", "settle", "split_cents"]
