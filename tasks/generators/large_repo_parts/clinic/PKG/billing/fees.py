"""The fee for a consultation and the patient's share."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ..core.errors import ValidationError


def consultation_fee(hourly_rate: int, duration_min: int) -> int:
    """hourly_rate x duration / 60, rounded half up to the cent."""
    if duration_min <= 0:
        raise ValidationError("duration must be positive")
    exact = Decimal(hourly_rate) * duration_min / 60
    return int(exact.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def patient_share(fee: int, copay: int, insured: bool) -> int:
    """Uninsured patients pay the fee; insured ones pay the co-payment, never more than the fee."""
    return min(fee, copay) if insured else fee
