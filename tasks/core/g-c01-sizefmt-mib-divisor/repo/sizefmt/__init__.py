"""sizefmt: byte counts for our backup reports, in binary units."""

from sizefmt.humanize import human
from sizefmt.parse import parse_size
from sizefmt.quota import Quota
from sizefmt.units import to_kib, to_mib

__all__ = ["Quota", "human", "parse_size", "to_kib", "to_mib"]
