"""Checks across record kinds: references between stores, and rules that no single record
can break on its own (stop numbering, credit limits, working hours, stock levels).

Every check returns messages that start with the kind and id they are about, sorted, so two
runs over the same data give the same list. check_all() runs every check it has stores for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from fleetops.models.invoice import Invoice
from fleetops.models.part import Part
from fleetops.models.shift import Shift
from fleetops.models.stop import Stop
from fleetops.services import (
    incident_service,
    inspection_service,
    invoice_service,
    part_service,
    route_service,
    shift_service,
    shipment_service,
    stop_service,
    tire_service,
    toll_service,
)
from fleetops.store.customer_store import CustomerStore
from fleetops.util.money import format_money, sum_cents

# kind -> the service function that checks that kind's references against other stores.
REFERENCE_CHECKS: dict[str, Callable[..., list[str]]] = {
    "incident": incident_service.check_references,
    "inspection": inspection_service.check_references,
    "invoice": invoice_service.check_references,
    "part": part_service.check_references,
    "route": route_service.check_references,
    "shift": shift_service.check_references,
    "shipment": shipment_service.check_references,
    "stop": stop_service.check_references,
    "tire": tire_service.check_references,
    "toll": toll_service.check_references,
}

MAX_SHIFT_HOURS_PER_DAY = 12.0
LOW_STOCK = 2


def dangling_references(stores: dict[str, object]) -> list[str]:
    """Every reference, in every given store, to a record that no given store holds.

    stores maps a kind ("tire", "vehicle", ...) to its store; a referenced kind that is not
    given is not checked (a tire's vehicle is only checked when "vehicle" is given).
    """
    by_plural = {f"{kind}s": store for kind, store in stores.items()}
    problems = []
    for kind in sorted(stores):
        check = REFERENCE_CHECKS.get(kind)
        if check is not None:
            problems += [f"{kind} {message}" for message in check(stores[kind], **by_plural)]
    return problems


def stop_sequence_gaps(stops: Iterable[Stop]) -> list[str]:
    """Routes whose stops are not numbered 1, 2, 3, ... without gaps or repeats."""
    problems = []
    by_route = stop_service.group_by_route(stops)
    for route_id in sorted(by_route):
        numbers = sorted(s.sequence for s in by_route[route_id])
        expected = list(range(1, len(numbers) + 1))
        if numbers != expected:
            problems.append(f"route {route_id}: stops numbered {numbers}, expected {expected}")
    return problems


def over_credit_limit(invoices: Iterable[Invoice], customers: CustomerStore) -> list[str]:
    """Customers whose unpaid invoices add up to more than their credit limit.

    Sums are exact cents; invoices of customers the store does not know are left to
    dangling_references().
    """
    unpaid: dict[str, list[float]] = defaultdict(list)
    for invoice in invoices:
        if not invoice.paid:
            unpaid[invoice.customer_id].append(invoice.amount)
    problems = []
    for customer_id in sorted(unpaid):
        if not customers.has(customer_id):
            continue
        owed = sum_cents(unpaid[customer_id])
        limit = sum_cents([customers.get(customer_id).credit_limit])
        if owed > limit:
            problems.append(
                f"customer {customer_id}: unpaid {format_money(owed)} "
                f"is over the credit limit {format_money(limit)}"
            )
    return problems


def long_working_days(
    shifts: Iterable[Shift], max_hours: float = MAX_SHIFT_HOURS_PER_DAY
) -> list[str]:
    """Drivers who worked more than max_hours on one day, over all their shifts."""
    hours: dict[tuple[str, str], float] = defaultdict(float)
    for shift in shifts:
        hours[(shift.driver_id, shift.day)] += shift.hours
    return [
        f"driver {driver_id}: {total:g} hours on {day} (at most {max_hours:g})"
        for (driver_id, day), total in sorted(hours.items())
        if total > max_hours
    ]


def low_stock(parts: Iterable[Part], minimum: int = LOW_STOCK) -> list[str]:
    """Parts with fewer than minimum units in stock, to reorder from their supplier."""
    return [
        f"part {p.id}: {p.stock} in stock (reorder from {p.supplier_id})"
        for p in sorted(parts, key=lambda p: p.id)
        if p.stock < minimum
    ]


def check_all(stores: dict[str, object]) -> list[str]:
    """Every check whose stores are given, in a fixed order; an empty list means clean data."""
    problems = dangling_references(stores)
    if "stop" in stores:
        problems += stop_sequence_gaps(stores["stop"])  # type: ignore[arg-type]
    if "invoice" in stores and "customer" in stores:
        problems += over_credit_limit(stores["invoice"], stores["customer"])  # type: ignore[arg-type]
    if "shift" in stores:
        problems += long_working_days(stores["shift"])  # type: ignore[arg-type]
    if "part" in stores:
        problems += low_stock(stores["part"])  # type: ignore[arg-type]
    return problems
